/*
 * Every status and manifest write of a service is conditional on the version it was computed from, so that the
 * lifecycle's paths (change, teardown, approval, retry, apply, status refresh, resume) never lose each other's
 * writes. Each test races two or more of them, on several backend replicas over one database (SQLite, and
 * PostgreSQL where its transactions really run in parallel), and checks what is stored: the manifests are the ones
 * rendered from the stored spec, the ledger holds exactly what the status implies, and nothing is left in a status
 * that nothing will move on.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { ConflictError } from '@backstage/errors';
import {
  demoPlatformConfig,
  readPlatformConfig,
  UpdateServiceBody,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { setupFakeClusterServer } from '../__testUtils__/setupFakeClusterServer';
import {
  ClusterTarget,
  createClusterApplier,
  KubernetesClientFactory,
} from '../cluster';
import { fakeKubernetesApi } from '../cluster/__testUtils__/fakeKubernetesApi';
import { DatabaseGpuStore, ServiceRecord } from '../database';
import { createQuoteService } from './QuoteService';
import { seedQuotas } from './seedQuotas';
import {
  APPLY_RESUME_ACTOR,
  InterruptedApplyResumer,
} from './InterruptedApplyResumer';
import { ServiceManager } from './ServiceManager';

jest.setTimeout(60_000);

const BASE = 'https://concurrency.test:6443';
const TEAM = 'ml-platform';
const USER = 'user:default/alice';
const APPROVER = 'user:default/platform-admin';
const SSA = '?fieldManager=backstage-gpu&force=true';
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;
const RESUME_AFTER_MS = 120_000;

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
// TestDatabases drops PostgreSQL silently without a connection string; CI sets GPU_REQUIRE_POSTGRES=1.
if (
  process.env.GPU_REQUIRE_POSTGRES === '1' &&
  !databases.supports('POSTGRES_15')
) {
  throw new Error(
    'GPU_REQUIRE_POSTGRES=1 but PostgreSQL is unavailable: set BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING',
  );
}

const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);
const applyTarget: ClusterTarget = {
  name: 'gpu-eu',
  mode: 'apply',
  connection: {
    type: 'serviceAccount',
    url: BASE,
    serviceAccountToken: 'token',
  },
};
const dryRunTarget: ClusterTarget = { mode: 'dry-run' };
const server = setupFakeClusterServer();

describe.each(databases.eachSupportedId())(
  'concurrent writes of a service on %p',
  id => {
    let knex: Knex;

    beforeAll(async () => {
      knex = await databases.init(id);
    });

    /** One backend replica: its own store and manager over the shared database (and, in apply mode, fake cluster). */
    async function replica(
      mode: 'apply' | 'dry-run',
      options: {
        clock?: () => Date;
        quoted?: () => Promise<void>;
        /** A reconciler's work queue: the manager records desired state and queues (ids recorded here). */
        queued?: string[];
      } = {},
    ) {
      const logger = mockServices.logger.mock();
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const target = mode === 'apply' ? applyTarget : dryRunTarget;
      const quotes = createQuoteService({
        platform,
        store,
        autoscaledReplicas: 'maximum',
      });
      const manager = new ServiceManager({
        platform,
        store,
        // `quoted` runs between the read of a change (or creation) and its write: a slow replica.
        quotes: {
          async quote(request) {
            const quote = await quotes.quote(request);
            await options.quoted?.();
            return quote;
          },
        },
        target,
        applier:
          mode === 'apply'
            ? createClusterApplier({
                target,
                factory: new KubernetesClientFactory({
                  requestTimeoutMs: 2_000,
                }),
                retry: { maxAttempts: 1, sleep: async () => {} },
              })
            : undefined,
        logger,
        ...(options.queued && {
          queue: {
            add: (serviceId: string) => options.queued!.push(serviceId),
            addAfter: (serviceId: string) => options.queued!.push(serviceId),
          },
        }),
      });
      const resumer = new InterruptedApplyResumer({
        services: manager,
        store,
        logger,
        resumeAfterMs: RESUME_AFTER_MS,
        now: options.clock,
      });
      return { store, manager, resumer };
    }

    type Replica = Awaited<ReturnType<typeof replica>>;

    /** Empty tables, the demo quotas, a fake cluster; `replicas` backend replicas of the mode. */
    async function setup(mode: 'apply' | 'dry-run', replicas = 3) {
      // One after the other: each runs the migrations.
      const all: Replica[] = [];
      for (let i = 0; i < replicas; i++) {
        all.push(await replica(mode));
      }
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
        store: all[0].store,
        logger: mockServices.logger.mock(),
      });
      return { api, replicas: all, ...all[0] };
    }

    /** Two L4s, below the pool's capacity of four: three replicas need approval, and an approver may grant them. */
    async function lowerQuota(on: Replica) {
      await on.store.putQuota({
        team: TEAM,
        quota: {
          pools: { 'l4-ondemand': 2 },
          monthlyBudgetMicros: 60_000_000_000,
        },
        actor: APPROVER,
      });
    }

    /** What the approval route does: decide, then deploy a service the decision left `approved`. */
    async function approve(
      on: Replica,
      approvalId: string,
      options: { allowOverQuota?: boolean } = {},
    ) {
      const result = await on.store.decideApproval({
        id: approvalId,
        decision: 'approve',
        actor: APPROVER,
        allowOverQuota: options.allowOverQuota,
      });
      return result.service.status === 'approved'
        ? on.manager.deploy(result.service, APPROVER)
        : result.service;
    }

    /** The stored service, which must be consistent: manifests rendered from its spec, ledger matching its status. */
    async function expectConsistent(
      on: Replica,
      serviceId: string,
    ): Promise<ServiceRecord> {
      const service = (await on.store.getService(serviceId))!;
      const reservations = await on.store.listReservations(serviceId);
      const held = reservations.filter(r => r.state === 'held');
      const pending = reservations.filter(r => r.state === 'pending');
      if (['deleted', 'rejected'].includes(service.status)) {
        expect({ held, pending }).toEqual({ held: [], pending: [] });
      } else if (service.status === 'pending-approval') {
        expect(held).toEqual([]);
        expect(pending).toHaveLength(1);
      } else {
        expect(held).toHaveLength(1);
        expect(held[0].pool).toBe(service.pool);
        // The stored manifests are exactly those of the stored spec (not of an older change).
        expect(service.manifests).toEqual(
          JSON.parse(JSON.stringify(await on.manager.render(service))),
        );
      }
      expect(['applying', 'deleting']).not.toContain(service.status);
      const quota = (await on.store.getQuota(TEAM))!;
      const heldUnits = (
        await knex('reservations')
          .where({ team: TEAM, state: 'held', pool: service.pool })
          .sum({ total: 'gpu_units' })
      )[0].total;
      expect(quota.reservedGpuEquivalents[service.pool] ?? 0).toBeCloseTo(
        Number(heldUnits ?? 0) / 5040,
      );
      return service;
    }

    function deploymentReplicas(service: ServiceRecord): unknown {
      return (
        service.manifests?.find(m => m.kind === 'Deployment') as
          | { spec?: { replicas?: number } }
          | undefined
      )?.spec?.replicas;
    }

    /** Every promise that failed, failed with a `ConflictError` (it lost a compare-and-set, and said so). */
    function expectOnlyConflicts(results: PromiseSettledResult<unknown>[]) {
      const reasons = results.flatMap(r =>
        r.status === 'rejected' ? [r.reason] : [],
      );
      expect(reasons).toEqual(reasons.map(() => expect.any(ConflictError)));
    }

    /** Audit events of the service of one action, oldest first. */
    async function events(on: Replica, serviceId: string, action: string) {
      const { items } = await on.store.listAuditEvents({
        subjectId: serviceId,
        action,
        limit: 500,
      });
      return items.reverse();
    }

    it('applies concurrent changes of different fields on top of each other: none is lost', async () => {
      const { replicas, ...first } = await setup('dry-run');
      for (let round = 0; round < 3; round++) {
        const { service } = await first.manager.create(
          {
            request: {
              ...devSummariser,
              name: `changed-${round}`,
              pool: 'h100',
            },
          },
          USER,
        );
        const changes: UpdateServiceBody[] = [
          { replicas: 2 },
          { model: 'mistral-7b' },
          { model: 'mistral-7b', replicas: 2 },
        ];
        const results = await Promise.allSettled(
          changes.map((change, i) =>
            replicas[i % replicas.length].manager.update(
              service.id,
              change,
              USER,
            ),
          ),
        );
        expect(results.map(r => r.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'fulfilled',
        ]);
        const stored = await expectConsistent(first, service.id);
        expect(stored.request).toMatchObject({
          replicas: 2,
          model: 'mistral-7b',
        });
        expect(deploymentReplicas(stored)).toBe(2);
        await first.manager.teardown(service.id, USER);
      }
    });

    it('computes a change again when another one was stored between its read and its write', async () => {
      const { replicas, ...first } = await setup('dry-run', 1);
      const { service } = await first.manager.create(
        { request: devSummariser },
        USER,
      );
      // A replica that reads the service, then stalls until the other change is stored.
      let quoted!: () => void;
      const stalled = new Promise<void>(resolve => {
        quoted = resolve;
      });
      let reachedQuote!: () => void;
      const reached = new Promise<void>(resolve => {
        reachedQuote = resolve;
      });
      let stalls = 1;
      const slow = await replica('dry-run', {
        quoted: async () => {
          if (stalls-- > 0) {
            reachedQuote();
            await stalled;
          }
        },
      });
      const late = slow.manager.update(service.id, { replicas: 2 }, USER);
      await reached;
      const other = await replicas[0].manager.update(
        service.id,
        { model: 'mistral-7b' },
        USER,
      );
      expect(other.service.request.model).toBe('mistral-7b');
      quoted();
      const changed = await late;

      // Not written over the model change, which it had not seen: computed again from the stored version.
      expect(changed.service.request).toMatchObject({
        model: 'mistral-7b',
        replicas: 2,
      });
      const stored = await expectConsistent(first, service.id);
      expect(stored.request).toMatchObject({
        model: 'mistral-7b',
        replicas: 2,
      });
      expect(deploymentReplicas(stored)).toBe(2);
    });

    it('stores, for N concurrent changes of the replicas, the manifests, reservation and history of the spec stored last', async () => {
      const { replicas, ...first } = await setup('dry-run', 4);
      // On the H100 pool (quota eight): the quote counts the held replicas too, so up to four fit without approval,
      // in production, which allows four dedicated GPUs over all replicas without approval (dev allows two).
      const { service } = await first.manager.create(
        {
          request: {
            ...devSummariser,
            pool: 'h100',
            environment: 'production',
          },
        },
        USER,
      );
      const wanted = [2, 3, 4, 1, 3, 2, 4, 1];
      const results = await Promise.allSettled(
        wanted.map((count, i) =>
          replicas[i % replicas.length].manager.update(
            service.id,
            { replicas: count },
            USER,
          ),
        ),
      );
      expect(results.filter(r => r.status === 'rejected')).toEqual([]);

      const stored = await expectConsistent(first, service.id);
      expect(deploymentReplicas(stored)).toBe(stored.request.replicas);
      const [held] = (await first.store.listReservations(service.id)).filter(
        r => r.state === 'held',
      );
      expect(held.gpuEquivalents).toBe(stored.request.replicas);

      // A linear history: every change was computed from, and replaced, the version before it.
      const changes = await events(first, service.id, 'service.change');
      expect(changes).toHaveLength(wanted.length);
      for (let i = 1; i < changes.length; i++) {
        expect(changes[i].before?.updatedAt).toBe(
          changes[i - 1].after?.updatedAt,
        );
      }
      expect(changes[changes.length - 1].after?.request).toMatchObject({
        replicas: stored.request.replicas,
      });
    });

    it('refuses a change computed from an older version in the store, writing nothing', async () => {
      const { store, manager } = await setup('dry-run', 1);
      const { service } = await manager.create(
        { request: devSummariser },
        USER,
      );
      await manager.update(service.id, { replicas: 2 }, USER);
      const auditBefore = await events(
        { store } as Replica,
        service.id,
        'service.change',
      );
      await expect(
        store.replaceReservation({
          serviceId: service.id,
          change: {
            tier: service.tier,
            pool: service.pool,
            request: { ...service.request, replicas: 3 },
            placement: service.placement,
          },
          reservation: { gpuEquivalents: 3, monthlyCostMicros: 1 },
          policy: { whenOverQuota: 'reject' },
          expectedUpdatedAt: service.updatedAt,
          actor: USER,
        }),
      ).rejects.toThrow(ConflictError);
      expect((await store.getService(service.id))!.request.replicas).toBe(2);
      expect(
        (await store.listReservations(service.id)).filter(
          r => r.state === 'held',
        ),
      ).toEqual([expect.objectContaining({ gpuEquivalents: 2 })]);
      expect(
        await events({ store } as Replica, service.id, 'service.change'),
      ).toEqual(auditBefore);
    });

    it('records a rendered-only service with its manifests in the transaction that creates it', async () => {
      const { store, manager } = await setup('dry-run', 1);
      const { service } = await manager.create(
        { request: devSummariser },
        USER,
      );
      const [created] = await events(
        { store } as Replica,
        service.id,
        'service.create',
      );
      // A backend that stops right after the insert leaves a complete service, not one without manifests.
      expect(created.after).toMatchObject({
        status: 'approved',
        manifestCount: service.manifests!.length,
      });
    });

    it('lets a DELETE win over a concurrent change, in dry-run', async () => {
      const { replicas, ...first } = await setup('dry-run');
      for (let round = 0; round < 5; round++) {
        const { service } = await first.manager.create(
          { request: { ...devSummariser, name: `raced-${round}` } },
          USER,
        );
        const [changed, deleted] = await Promise.allSettled([
          replicas[1].manager.update(service.id, { replicas: 2 }, USER),
          replicas[2].manager.teardown(service.id, USER),
        ]);
        expect(deleted.status).toBe('fulfilled');
        // The change either went first or was refused (the service was deleted): never an error of another kind.
        expectOnlyConflicts([changed]);
        const stored = await expectConsistent(first, service.id);
        expect(stored.status).toBe('deleted');
      }
      const { reservedGpuEquivalents } = (await first.store.getQuota(TEAM))!;
      expect(Object.values(reservedGpuEquivalents).every(v => v === 0)).toBe(
        true,
      );
    });

    it('lets a DELETE win over the apply of a concurrent change, and leaves nothing in the cluster', async () => {
      const { api, replicas, ...first } = await setup('apply');
      const { service } = await first.manager.create(
        { request: devSummariser },
        USER,
      );
      expect(service.status).toBe('starting');

      // The change's apply is held at its Deployment PATCH while another replica deletes the service.
      const held = api.hold('PATCH', `${DEPLOYMENT}${SSA}`);
      const changing = replicas[1].manager.update(
        service.id,
        { replicas: 2 },
        USER,
      );
      await held.reached;
      expect((await first.store.getService(service.id))!).toMatchObject({
        status: 'applying',
        request: expect.objectContaining({ replicas: 2 }),
      });
      const deleted = await replicas[2].manager.teardown(service.id, USER);
      expect(deleted.status).toBe('deleted');
      held.release();
      expect((await changing).service.status).toBe('deleted');

      await expectConsistent(first, service.id);
      expect(api.live(DEPLOYMENT)).toBeUndefined();
    });

    it('lets a DELETE win over a concurrent approval, whichever commits first', async () => {
      const { api, replicas, ...first } = await setup('apply');
      await lowerQuota(first);
      for (let round = 0; round < 4; round++) {
        const name = `approved-${round}`;
        // Three replicas of one L4 each: over the quota of two, so it waits for an approver.
        const { service, approval } = await first.manager.create(
          { request: { ...devSummariser, name, replicas: 3 } },
          USER,
        );
        expect(service.status).toBe('pending-approval');
        const [approved, deleted] = await Promise.allSettled([
          approve(replicas[1], approval!.id, { allowOverQuota: true }),
          replicas[2].manager.teardown(service.id, USER),
        ]);
        expect(deleted.status).toBe('fulfilled');
        expectOnlyConflicts([approved]);
        const stored = await expectConsistent(first, service.id);
        expect(stored.status).toBe('deleted');
        expect(
          api.live(`/apis/apps/v1/namespaces/${TEAM}/deployments/${name}`),
        ).toBeUndefined();
        const [decided] = await first.store.listApprovals({
          serviceId: service.id,
        });
        expect(['approved', 'rejected']).toContain(decided.state);
      }
    });

    it('refuses to approve a change while an apply is in flight, and applies an approved change', async () => {
      const { api, replicas, ...first } = await setup('apply');
      await lowerQuota(first);
      // The first apply fails: the service is `failed`, and may be changed and retried.
      api.faults.push({
        method: 'PATCH',
        path: `${DEPLOYMENT}${SSA}`,
        failure: 500,
        message: 'etcdserver: request timed out',
      });
      const { service } = await first.manager.create(
        { request: devSummariser },
        USER,
      );
      expect(service.status).toBe('failed');
      const proposed = await replicas[1].manager.update(
        service.id,
        { replicas: 3 },
        USER,
      );
      expect(proposed.service.status).toBe('failed');
      const approvalId = proposed.approval!.id;

      // A retry applies the stored version; approving the change in the middle of it would change the spec under
      // the apply (whose outcome would then be lost): refused.
      const held = api.hold('PATCH', `${DEPLOYMENT}${SSA}`);
      const retrying = replicas[2].manager.retry(service.id, USER);
      await held.reached;
      await expect(
        approve(replicas[1], approvalId, { allowOverQuota: true }),
      ).rejects.toThrow(ConflictError);
      held.release();
      const retried = await retrying;
      expect(retried.status).toBe('starting');
      expect(retried.request.replicas).toBe(1);
      await expectConsistent(first, service.id);
      expect(api.live(DEPLOYMENT)?.spec.replicas).toBe(1);

      // Approved once the apply is done: the change is stored, rendered and applied.
      const applied = await approve(replicas[0], approvalId, {
        allowOverQuota: true,
      });
      expect(applied.status).toBe('starting');
      const stored = await expectConsistent(first, service.id);
      expect(stored.request.replicas).toBe(3);
      expect(deploymentReplicas(stored)).toBe(3);
      expect(api.live(DEPLOYMENT)?.spec.replicas).toBe(3);
      expect(
        (await events(first, service.id, 'service.status')).map(
          e => `${e.before?.status}->${e.after?.status}`,
        ),
      ).toEqual([
        'approved->applying',
        'applying->failed',
        'failed->applying',
        'applying->starting',
        'starting->approved',
        'approved->applying',
        'applying->starting',
      ]);
    });

    it('applies a failed service once when retries race each other and a change', async () => {
      const { api, replicas, ...first } = await setup('apply');
      api.faults.push({
        method: 'PATCH',
        path: `${DEPLOYMENT}${SSA}`,
        failure: 500,
      });
      const { service } = await first.manager.create(
        { request: devSummariser },
        USER,
      );
      expect(service.status).toBe('failed');

      const results = await Promise.allSettled([
        replicas[0].manager.retry(service.id, USER),
        replicas[1].manager.retry(service.id, USER),
        replicas[2].manager.update(service.id, { replicas: 2 }, USER),
      ]);
      expectOnlyConflicts(results);
      const stored = await expectConsistent(first, service.id);
      expect(stored.status).toBe('starting');
      expect(api.live(DEPLOYMENT)?.spec.replicas).toBe(stored.request.replicas);
      // One claim of the failed version: retries and the change never applied the same version twice.
      const claims = (await events(first, service.id, 'service.status')).filter(
        e => e.before?.status === 'failed',
      );
      expect(claims).toHaveLength(1);
    });

    it('applies a service once with a work queue per replica: only the replica that claimed it applies', async () => {
      const { api } = await setup('apply', 1);
      const queuedA: string[] = [];
      const queuedB: string[] = [];
      const a = await replica('apply', { queued: queuedA });
      const b = await replica('apply', { queued: queuedB });
      const { service } = await a.manager.create(
        { request: devSummariser },
        USER,
      );
      expect(service.status).toBe('applying');
      expect(queuedA).toEqual([service.id]);
      const applies = () =>
        api.requests.filter(
          r => r.method === 'PATCH' && r.path === `${DEPLOYMENT}${SSA}`,
        ).length;
      // Replica B hears of it (its watch sees the first object A applies) while A works on its claim.
      await Promise.all([
        b.manager.reconcile(service.id),
        a.manager.reconcile(service.id),
        b.manager.reconcile(service.id),
      ]);
      expect(applies()).toBe(1);
      expect((await a.store.getService(service.id))!.status).toBe('starting');
      // A change made through B is B's claim: B applies it, A (hearing of it) does not.
      const { service: changed } = (await b.manager.update(
        service.id,
        { replicas: 2 },
        USER,
      ))!;
      expect(changed.status).toBe('applying');
      expect(queuedB).toEqual([service.id]);
      await Promise.all([
        a.manager.reconcile(service.id),
        b.manager.reconcile(service.id),
      ]);
      expect(applies()).toBe(2);
      const stored = await expectConsistent(a, service.id);
      expect(stored.status).toBe('starting');
      expect(api.live(DEPLOYMENT)?.spec.replicas).toBe(2);
    });

    it('finishes, on a replay with the request key, a create that stopped between recording and claiming', async () => {
      await setup('apply', 1);
      const queuedA: string[] = [];
      const queuedB: string[] = [];
      const a = await replica('apply', { queued: queuedA });
      const b = await replica('apply', { queued: queuedB });
      const body = { request: devSummariser, requestKey: 'summariser-once' };
      // The database goes away after the service is recorded, before it is claimed for applying.
      jest
        .spyOn(a.store, 'updateServiceStatus')
        .mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
      await expect(a.manager.create(body, USER)).rejects.toThrow(
        'Connection terminated unexpectedly',
      );
      const [recorded] = await a.store.listServices({ team: TEAM });
      expect(recorded.status).toBe('approved');
      expect(queuedA).toEqual([]);

      // The client tries again, and reaches both replicas: one claims it and queues it, once.
      const replays = await Promise.all([
        a.manager.create(body, USER),
        b.manager.create(body, USER),
      ]);
      expect(replays.map(r => [r.created, r.service.id])).toEqual([
        [false, recorded.id],
        [false, recorded.id],
      ]);
      expect([...queuedA, ...queuedB]).toEqual([recorded.id]);
      const stored = (await a.store.getService(recorded.id))!;
      expect(stored.status).toBe('applying');
      const claims = await events(a, recorded.id, 'service.status');
      expect(claims.filter(e => e.after?.status === 'applying')).toHaveLength(
        1,
      );
    });

    it('moves on a service a stopped backend left approved or deleting, on one replica', async () => {
      const { api, ...first } = await setup('apply');
      const input = (name: string) => ({
        name,
        team: TEAM,
        namespace: TEAM,
        environment: 'dev',
        tier: 'dedicated' as const,
        pool: 'l4-ondemand',
        request: { ...devSummariser, name, namespace: TEAM },
        placement: {
          tier: 'dedicated' as const,
          pool: 'l4-ondemand',
          gpusPerReplica: 1,
        },
        cluster: 'gpu-eu',
        mode: 'apply' as const,
        reservation: { gpuEquivalents: 1, monthlyCostMicros: 1 },
        policy: { whenOverQuota: 'reject' as const },
        actor: USER,
      });
      // Recorded (or approved) and admitted, but the backend stopped before it claimed the service for applying.
      const { service: approved } =
        await first.store.createServiceWithReservation(input('summariser'));
      expect(approved.status).toBe('approved');
      // Applied, then a teardown claimed it (`deleting`) and the backend stopped before it deleted anything.
      const { service: other } = await first.store.createServiceWithReservation(
        input('other'),
      );
      await first.manager.deploy(other, USER);
      const live = (await first.store.getService(other.id))!;
      const deleting = await first.store.updateServiceStatus({
        id: other.id,
        status: 'deleting',
        reason: 'Deleting',
        expectedStatus: [live.status],
        expectedUpdatedAt: live.updatedAt,
        actor: USER,
      });
      expect(
        api.live(`/apis/apps/v1/namespaces/${TEAM}/deployments/other`),
      ).toBeDefined();

      // Not stale yet: left alone.
      expect(await first.resumer.resumeInterruptedApplies()).toEqual({
        resumed: [],
        gaveUp: [],
      });
      const later = () => new Date(Date.now() + RESUME_AFTER_MS + 1_000);
      const [a, b] = await Promise.all([
        replica('apply', { clock: later }),
        replica('apply', { clock: later }),
      ]);
      const summaries = await Promise.all([
        a.resumer.resumeInterruptedApplies(),
        b.resumer.resumeInterruptedApplies(),
      ]);
      expect(
        summaries
          .flatMap(s => s.resumed)
          .sort((x, y) => x.id.localeCompare(y.id)),
      ).toEqual(
        [
          { id: approved.id, status: 'starting' },
          { id: deleting.id, status: 'deleted' },
        ].sort((x, y) => x.id.localeCompare(y.id)),
      );
      await expectConsistent(first, approved.id);
      await expectConsistent(first, deleting.id);
      expect(api.live(DEPLOYMENT)).toBeDefined();
      expect(
        api.live(`/apis/apps/v1/namespaces/${TEAM}/deployments/other`),
      ).toBeUndefined();
      const actors = (await events(first, approved.id, 'service.status')).map(
        e => `${e.before?.status}->${e.after?.status} (${e.actor})`,
      );
      expect(actors).toEqual([
        `approved->applying (${APPLY_RESUME_ACTOR})`,
        `applying->starting (${APPLY_RESUME_ACTOR})`,
      ]);
    });
  },
);
