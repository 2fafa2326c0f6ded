import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { setupFakeClusterServer } from '../__testUtils__/setupFakeClusterServer';
import {
  ClusterTarget,
  createClusterApplier,
  createClusterStatusReader,
  KubernetesClientFactory,
} from '../cluster';
import { fakeKubernetesApi } from '../cluster/__testUtils__/fakeKubernetesApi';
import { simulatedControllers } from '../cluster/__testUtils__/simulatedControllers';
import { DatabaseGpuStore } from '../database';
import { createQuoteService } from './QuoteService';
import { seedQuotas } from './seedQuotas';
import {
  APPLY_RESUME_ACTOR,
  InterruptedApplyResumer,
} from './InterruptedApplyResumer';
import { ServiceManager } from './ServiceManager';
import {
  ServiceStatusRefresher,
  STATUS_REFRESH_ACTOR,
} from './ServiceStatusRefresher';

jest.setTimeout(60_000);

const BASE = 'https://manager.test:6443';
const TEAM = 'ml-platform';
const USER = 'user:default/alice';
const SSA = '?fieldManager=backstage-gpu&force=true';
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;
const RESUME_AFTER_MS = 120_000;

// PostgreSQL runs when scripts/test provides it (BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING).
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);
const target: ClusterTarget = {
  name: 'gpu-eu',
  mode: 'apply',
  connection: {
    type: 'serviceAccount',
    url: BASE,
    serviceAccountToken: 'token',
  },
};
const server = setupFakeClusterServer();

describe.each(databases.eachSupportedId())('ServiceManager on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
  });

  /** One backend replica: its own store, applier and status reader over the shared database and fake cluster. */
  async function replica(options: { clock?: () => Date } = {}) {
    const logger = mockServices.logger.mock();
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    const factory = new KubernetesClientFactory({ requestTimeoutMs: 2_000 });
    const manager = new ServiceManager({
      platform,
      store,
      quotes: createQuoteService({
        platform,
        store,
        autoscaledReplicas: 'maximum',
      }),
      target,
      applier: createClusterApplier({
        target,
        factory,
        retry: { maxAttempts: 2, sleep: async () => {} },
      }),
      logger,
    });
    return {
      store,
      manager,
      statuses: new ServiceStatusRefresher({
        store,
        statusReader: createClusterStatusReader({
          target,
          factory,
          kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
          requestTimeoutMs: 2_000,
        }),
        logger,
        now: options.clock,
      }),
      resumer: new InterruptedApplyResumer({
        services: manager,
        store,
        logger,
        resumeAfterMs: RESUME_AFTER_MS,
        resumeAttempts: 2,
        now: options.clock,
      }),
    };
  }

  async function setup() {
    const first = await replica();
    for (const table of [
      'audit_events',
      'approvals',
      'reservations',
      'cost_snapshots',
      'services',
      'pool_quotas',
      'team_quotas',
    ]) {
      await knex(table).delete();
    }
    const api = fakeKubernetesApi(BASE);
    server.use(...api.handlers);
    await seedQuotas({
      platform,
      store: first.store,
      logger: mockServices.logger.mock(),
    });
    const cluster = simulatedControllers(api, {
      namespace: TEAM,
      name: 'summariser',
    });
    /** What the controllers write once the pod is admitted, running and ready. */
    const available = () => {
      cluster.replicaSet();
      const pod = cluster.pod(0, 'running');
      cluster.workload(pod, {
        admitted: true,
        clusterQueue: `gpu-${TEAM}`,
        flavor: 'l4-ondemand',
      });
      cluster.deploymentStatus({ updated: 1, ready: 1, available: 1 });
    };
    return { api, cluster, available, ...first };
  }

  async function statusEvents(store: DatabaseGpuStore, serviceId: string) {
    const { items } = await store.listAuditEvents({
      subjectId: serviceId,
      action: 'service.status',
    });
    return items
      .reverse()
      .map(e => `${e.before?.status}->${e.after?.status} (${e.actor})`);
  }

  it('moves starting to ready once, however many replicas refresh at the same time', async () => {
    const { manager, statuses, store, available } = await setup();
    const { service } = await manager.create({ request: devSummariser }, USER);
    expect(service.status).toBe('starting');
    available();

    const others = await Promise.all([replica(), replica()]);
    const results = await Promise.all([
      statuses.refreshStatus(service.id),
      ...others.map(o => o.statuses.refreshStatus(service.id)),
    ]);
    expect(results.filter(r => r.changed)).toHaveLength(1);
    expect(results.map(r => r.service.status)).toEqual([
      'ready',
      'ready',
      'ready',
    ]);
    expect(await statusEvents(store, service.id)).toEqual([
      `approved->applying (${USER})`,
      `applying->starting (${USER})`,
      `starting->ready (${STATUS_REFRESH_ACTOR})`,
    ]);
  });

  it('refreshes every starting and ready service, and marks them ClusterUnreachable while the cluster cannot be reached', async () => {
    const { manager, statuses, store, api, available } = await setup();
    const { service: first } = await manager.create(
      { request: devSummariser },
      USER,
    );
    const { service: second } = await manager.create(
      { request: { ...devSummariser, name: 'other' } },
      USER,
    );
    available();
    // The second one's pod waits for Kueue.
    const other = simulatedControllers(api, { namespace: TEAM, name: 'other' });
    other.replicaSet();
    other.deploymentStatus({ updated: 1, available: 0 });
    other.workload(other.pod(0, 'gated'), {
      admitted: false,
      message:
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed",
    });

    expect(await statuses.refreshStatuses()).toEqual({
      checked: 2,
      changed: expect.arrayContaining([first.id, second.id]),
      unreadable: [],
    });
    expect((await store.getService(first.id))!.status).toBe('ready');
    expect(await store.getService(second.id)).toMatchObject({
      status: 'starting',
      statusReason:
        "Waiting for Kueue admission: couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed",
    });

    // The API server goes away: both are reported unreadable and marked ClusterUnreachable (availability unknown).
    for (const name of ['summariser', 'other']) {
      api.faults.push({
        method: 'GET',
        path: `/apis/apps/v1/namespaces/${TEAM}/deployments/${name}`,
        failure: 'network',
        times: 5,
      });
    }
    const down = await statuses.refreshStatuses();
    expect([...down.changed].sort()).toEqual([first.id, second.id].sort());
    expect([...down.unreadable].sort()).toEqual([first.id, second.id].sort());
    expect(await store.getService(first.id)).toMatchObject({
      status: 'starting',
      reason: 'ClusterUnreachable',
    });
    // Still unreachable: nothing more is written.
    for (const name of ['summariser', 'other']) {
      api.faults.push({
        method: 'GET',
        path: `/apis/apps/v1/namespaces/${TEAM}/deployments/${name}`,
        failure: 'network',
        times: 5,
      });
    }
    expect((await statuses.refreshStatuses()).changed).toEqual([]);
    api.faults.length = 0;
    // Back: the first is ready again from what the cluster says.
    await statuses.refreshStatuses();
    expect(await store.getService(first.id)).toMatchObject({
      status: 'ready',
      reason: 'Available',
    });
  });

  it('never writes a refresh computed before a delete or a re-apply', async () => {
    const { manager, statuses, store, api, available } = await setup();
    const { service } = await manager.create({ request: devSummariser }, USER);
    available();
    // The events list is the last read of a refresh: hold it, so the refresh has already seen the Deployment available.
    await statuses.readClusterStatus(service);
    const eventsPath = api.requests.find(r =>
      r.path.startsWith(`/api/v1/namespaces/${TEAM}/events?`),
    )!.path;

    let hold = api.hold('GET', eventsPath);
    const staleBeforeDelete = statuses.refreshStatus(service.id);
    await hold.reached;
    const deleted = await manager.teardown(service.id, USER);
    expect(deleted.status).toBe('deleted');
    hold.release();
    const afterDelete = await staleBeforeDelete;
    expect(afterDelete.changed).toBe(false);
    expect(afterDelete.service.status).toBe('deleted');
    expect((await store.getService(service.id))!.status).toBe('deleted');

    // A second service is changed (re-applied) while a refresh is reading the cluster.
    const { service: second } = await manager.create(
      { request: devSummariser },
      USER,
    );
    available();
    hold = api.hold('GET', eventsPath);
    const staleBeforeChange = statuses.refreshStatus(second.id);
    await hold.reached;
    const changed = await manager.update(second.id, { replicas: 2 }, USER);
    expect(changed.service.status).toBe('starting');
    hold.release();
    // What it read before the change is never written: it reads the new version and its cluster again.
    const afterChange = await staleBeforeChange;
    expect(afterChange.service).toMatchObject({
      status: 'starting',
      statusReason: expect.stringMatching(/^Waiting for the Deployment: /),
    });
    expect(await statusEvents(store, second.id)).toEqual([
      `approved->applying (${USER})`,
      `applying->starting (${USER})`,
      `starting->applying (${USER})`,
      `applying->starting (${USER})`,
      // Two replicas wanted, one available: still starting, with why.
      `starting->starting (${STATUS_REFRESH_ACTOR})`,
    ]);
    // The next refresh finds nothing more to write.
    const next = await statuses.refreshStatus(second.id);
    expect(next.changed).toBe(false);
    expect(next.service.statusReason).toBe(afterChange.service.statusReason);
  });

  it('answers a status and a cluster status of one read when its write loses to a writer that read the cluster earlier', async () => {
    const { manager, statuses, store, api, cluster } = await setup();
    const { service } = await manager.create({ request: devSummariser }, USER);
    cluster.replicaSet();
    const pod = cluster.pod(0, 'gated');
    const quotaMessage =
      "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed";
    cluster.workload(pod, { admitted: false, message: quotaMessage });
    await statuses.readClusterStatus(service);
    const eventsPath = api.requests.find(r =>
      r.path.startsWith(`/api/v1/namespaces/${TEAM}/events?`),
    )!.path;

    const hold = api.hold('GET', eventsPath);
    const refresh = statuses.refreshStatus(service.id);
    await hold.reached;
    // Meanwhile the reconciler writes what it read before Kueue had evaluated the Workload.
    const earlier = (await store.getService(service.id))!;
    await store.updateServiceStatus({
      id: service.id,
      status: 'starting',
      reason: 'KueuePending',
      statusReason: 'Waiting for Kueue admission: not evaluated by Kueue yet',
      expectedStatus: [earlier.status],
      expectedUpdatedAt: earlier.updatedAt,
      actor: 'system:test-reconciler',
    });
    hold.release();

    const answer = await refresh;
    expect(answer.clusterStatus?.admission?.message).toBe(quotaMessage);
    expect(answer.service.statusReason).toBe(
      `Waiting for Kueue admission: ${quotaMessage}`,
    );
    expect(answer.changed).toBe(true);
    expect((await store.getService(service.id))!.statusReason).toBe(
      answer.service.statusReason,
    );
  });

  it('resumes an apply interrupted by a backend that stopped, on one replica, and the late original cannot overwrite it', async () => {
    const { manager, store, api } = await setup();
    // The first replica stops answering in the middle of its apply (its Deployment PATCH never completes).
    const stuck = api.hold('PATCH', `${DEPLOYMENT}${SSA}`);
    const interrupted = manager.create({ request: devSummariser }, USER);
    await stuck.reached;
    const [applying] = await store.listServices({ status: 'applying' });
    expect(applying).toBeDefined();

    // Not yet stale: nobody touches it.
    const early = await replica();
    expect(await early.resumer.resumeInterruptedApplies()).toEqual({
      resumed: [],
      gaveUp: [],
    });

    // Past gpu.apply.resumeAfter, two replicas look at the same time: exactly one claims and applies it again.
    const later = () => new Date(Date.now() + RESUME_AFTER_MS + 1_000);
    const [a, b] = await Promise.all([
      replica({ clock: later }),
      replica({ clock: later }),
    ]);
    const summaries = await Promise.all([
      a.resumer.resumeInterruptedApplies(),
      b.resumer.resumeInterruptedApplies(),
    ]);
    expect(summaries.flatMap(s => s.resumed)).toEqual([
      { id: applying.id, status: 'starting' },
    ]);
    expect(api.live(DEPLOYMENT)).toBeDefined();

    // The stopped replica's apply finally completes: its final write was conditional on the version it wrote.
    stuck.release();
    const original = await interrupted;
    expect(original.service.status).toBe('starting');
    expect(await statusEvents(store, applying.id)).toEqual([
      `approved->applying (${USER})`,
      `applying->applying (${APPLY_RESUME_ACTOR})`,
      `applying->starting (${APPLY_RESUME_ACTOR})`,
    ]);
  });

  it('fails an apply interrupted too often with the reason, and a retry completes it', async () => {
    const { manager, store } = await setup();
    const created = await store.createServiceWithReservation({
      name: 'summariser',
      team: TEAM,
      namespace: TEAM,
      environment: 'dev',
      tier: 'dedicated',
      pool: 'l4-ondemand',
      request: { ...devSummariser, namespace: TEAM },
      placement: { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
      cluster: 'gpu-eu',
      mode: 'apply',
      reservation: { gpuEquivalents: 1, monthlyCostMicros: 1 },
      policy: { whenOverQuota: 'reject' },
      actor: USER,
    });
    // The apply and both resumes it is allowed were interrupted (each replica stopped after claiming it).
    let current = await store.updateServiceStatus({
      id: created.service.id,
      status: 'applying',
      reason: 'Applying',
      actor: USER,
    });
    for (let resume = 0; resume < 2; resume++) {
      current = await store.updateServiceStatus({
        id: current.id,
        status: 'applying',
        reason: 'Applying',
        statusReason: 'Resuming an interrupted apply',
        expectedStatus: ['applying'],
        expectedUpdatedAt: current.updatedAt,
        actor: APPLY_RESUME_ACTOR,
      });
    }
    const later = await replica({
      clock: () => new Date(Date.now() + RESUME_AFTER_MS + 1_000),
    });
    expect(await later.resumer.resumeInterruptedApplies()).toEqual({
      resumed: [],
      gaveUp: [current.id],
    });
    const failed = await store.getService(current.id);
    expect(failed).toMatchObject({
      status: 'failed',
      statusReason: expect.stringMatching(
        /^The apply was interrupted 3 times before it completed .*quota stays reserved; retry the apply/,
      ),
    });
    expect((await store.listReservations(current.id))[0].state).toBe('held');

    const retried = await manager.retry(current.id, USER);
    expect(retried.status).toBe('starting');
  });
});
