import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  readPlatformConfig,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { Knex } from 'knex';
import { ClusterStatusReader } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { ForgeClient, Forges, PullRequestRef } from '../gitops/forges';
import { toServiceViewWeighed } from './toServiceView';
import { createQuoteService } from './QuoteService';
import { seedQuotas } from './seedQuotas';
import { ServiceManager } from './ServiceManager';
import { ServiceStatusRefresher } from './ServiceStatusRefresher';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const CLUSTER = 'gitops-eu';
const PULL_URL = 'https://git.example.com/ops/gitops/pulls/2';

/** A forge the backend can resolve pull requests on; nothing here reads their state (the follower does). */
const forge: ForgeClient = {
  host: 'git.example.com',
  parse: (url: string): PullRequestRef => ({
    url,
    number: Number(url.split('/').pop()),
  }),
  state: async () => 'open',
  close: async () => 'closed',
};

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);

/** What the GitOps cluster says of the service's Deployment, as the read-only reader would read it. */
function observed(
  deployment: { exists: boolean; available?: boolean; replicas?: number },
  admitted = true,
): ServiceClusterStatus {
  return {
    cluster: CLUSTER,
    observedAt: new Date().toISOString(),
    deployment: {
      name: devSummariser.name,
      namespace: devSummariser.namespace ?? 'ml-platform',
      exists: deployment.exists,
      available: deployment.available ?? false,
      replicas: deployment.replicas ?? 1,
      readyReplicas: deployment.available ? 1 : 0,
      availableReplicas: deployment.available ? 1 : 0,
      updatedReplicas: 1,
      currentReplicas: 1,
      conditions: [],
      ...(deployment.exists
        ? {}
        : {
            reason: 'Deployment ml-platform/summariser is not in the cluster',
          }),
    },
    admission: {
      state: admitted ? 'admitted' : 'pending',
      admitted: admitted ? 1 : 0,
      pending: admitted ? 0 : 1,
      flavors: {},
      workloads: [],
    },
    pods: [],
    warnings: [],
  } as ServiceClusterStatus;
}

describe.each(databases.eachSupportedId())(
  'status of GitOps services read back on %p',
  id => {
    let knex: Knex;

    beforeAll(async () => {
      knex = await databases.init(id);
    });

    async function setup() {
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      for (const table of [
        'audit_events',
        'approvals',
        'reservations',
        'cost_snapshots',
        'service_changes',
        'services',
        'pool_quotas',
        'team_quotas',
      ]) {
        await knex(table).delete();
      }
      await seedQuotas({ platform, store, logger: mockServices.logger.mock() });
      const target = { name: CLUSTER, mode: 'gitops' as const };
      const quoteOptions = {
        platform,
        store,
        autoscaledReplicas: 'maximum' as const,
      };
      const manager = new ServiceManager({
        platform,
        store,
        quotes: createQuoteService(quoteOptions),
        target,
        clusters: new Map([[CLUSTER, { target }]]),
        logger: mockServices.logger.mock(),
        forges: new Forges([forge]),
      });
      let cluster = observed({ exists: false });
      const reads: string[] = [];
      const reader = {
        cluster: CLUSTER,
        async read(objects: { serviceId: string }) {
          reads.push(objects.serviceId);
          return cluster;
        },
      } as unknown as ClusterStatusReader;
      const repairs: string[] = [];
      const refresher = new ServiceStatusRefresher({
        store,
        gitopsStatusReaders: new Map([[CLUSTER, reader]]),
        logger: mockServices.logger.mock(),
        repair: async (service, why) => {
          repairs.push(why);
          return service;
        },
      });
      const { service } = await manager.create(
        { request: devSummariser, mode: 'gitops' },
        USER,
      );
      return {
        store,
        manager,
        refresher,
        service,
        reads,
        repairs,
        set: (s: ServiceClusterStatus) => {
          cluster = s;
        },
      };
    }

    it('stays approved until its controller applied it, then follows admission and availability', async () => {
      const { refresher, service, set } = await setup();
      expect(service).toMatchObject({
        status: 'approved',
        reason: 'RenderedForGitOps',
      });
      expect((await refresher.refreshStatus(service.id)).service.status).toBe(
        'approved',
      );

      set(observed({ exists: true, available: false }, false));
      const applied = (await refresher.refreshStatus(service.id)).service;
      expect(applied).toMatchObject({
        status: 'starting',
        reason: 'KueuePending',
        observedGeneration: 1,
      });

      set(observed({ exists: true, available: true }));
      const ready = (await refresher.refreshStatus(service.id)).service;
      expect(ready).toMatchObject({ status: 'ready', reason: 'Available' });
      expect((await refresher.refreshStatuses()).checked).toBe(1);
    });

    it('reports drift and never repairs it', async () => {
      const { refresher, service, set, repairs } = await setup();
      set(observed({ exists: true, available: true }));
      await refresher.refreshStatus(service.id);

      set(observed({ exists: true, available: true, replicas: 3 }));
      const drifted = await refresher.refreshStatus(service.id);
      expect(drifted.service).toMatchObject({
        status: 'ready',
        reason: 'DriftedFromGit',
        statusReason: expect.stringContaining(
          'asks for 3 replicas, not the 1 requested',
        ),
      });
      // Said once: a second read of the same drift writes nothing.
      expect((await refresher.refreshStatus(service.id)).changed).toBe(false);

      set(observed({ exists: false }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        { status: 'starting', reason: 'DeploymentMissing' },
      );
      expect(repairs).toEqual([]);
    });

    it('while a change is pending, compares the cluster with the spec Git holds and says ChangePending; after the merge and sync, with the new spec', async () => {
      const { store, manager, refresher, service, set, repairs } =
        await setup();
      set(observed({ exists: true, available: true }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        { status: 'ready', reason: 'Available', observedGeneration: 1 },
      );

      // The change template's calls: a PATCH pending until its request is merged, then the confirm step.
      await manager.update(
        service.id,
        { replicas: 2, provisional: true },
        USER,
      );
      // Not confirmed yet: pending until its template run records the request.
      const unconfirmed = (await refresher.refreshStatus(service.id)).service;
      expect(unconfirmed).toMatchObject({
        status: 'ready',
        reason: 'ChangePending',
        generation: 2,
        observedGeneration: 1,
        statusReason: expect.stringContaining('records its pull request (by '),
      });
      await manager.confirm(service.id, USER, PULL_URL);

      // The cluster still runs one replica, as Git's main branch says: no drift, the change is pending.
      const pending = await refresher.refreshStatus(service.id);
      expect(pending.service).toMatchObject({
        status: 'ready',
        reason: 'ChangePending',
        generation: 2,
        observedGeneration: 1,
        statusReason: `Available with the spec Git holds; its change (generation 2) is pending until its pull request ${PULL_URL} is merged`,
      });
      expect(pending.service.request.replicas).toBe(2);
      // Said once.
      expect((await refresher.refreshStatus(service.id)).changed).toBe(false);

      // Real drift from what Git holds is still drift.
      set(observed({ exists: true, available: true, replicas: 3 }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        {
          status: 'ready',
          reason: 'DriftedFromGit',
          observedGeneration: 1,
          statusReason: expect.stringContaining(
            'asks for 3 replicas, not the 1 requested (the spec Git holds until its change, generation 2, is merged)',
          ),
        },
      );
      set(observed({ exists: true, available: false }, false));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        { status: 'starting', reason: 'KueuePending', observedGeneration: 1 },
      );
      set(observed({ exists: true, available: true }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        { status: 'ready', reason: 'ChangePending', observedGeneration: 1 },
      );

      // Merged (as the follower records it); the controller has not synced yet: compared with the new spec, which the
      // cluster has yet to apply, not drift.
      const change = await store.getPendingChange(service.id);
      await store.settleChange({
        changeId: change!.id,
        state: 'merged',
        actor: USER,
      });
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        {
          status: 'ready',
          reason: 'AwaitingSync',
          observedGeneration: 1,
          statusReason: expect.stringContaining(
            'Generation 2 is merged; its GitOps controller has not applied it yet, so the cluster still differs: its Deployment asks for 1 replicas, not the 2 requested',
          ),
        },
      );
      // Synced: the new spec runs, and its generation is the one applied.
      set(observed({ exists: true, available: true, replicas: 2 }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        {
          status: 'ready',
          reason: 'Available',
          generation: 2,
          observedGeneration: 2,
        },
      );
      // Scaled by hand once the merged generation was applied: drift.
      set(observed({ exists: true, available: true, replicas: 3 }));
      expect((await refresher.refreshStatus(service.id)).service).toMatchObject(
        {
          status: 'ready',
          reason: 'DriftedFromGit',
          observedGeneration: 2,
        },
      );
      expect(repairs).toEqual([]);
    });

    it("carries the pending change in the service's view: its request, and what it changes from the spec it recorded", async () => {
      const { store, manager, service } = await setup();
      const viewOf = async () => {
        const [listing] = await store.listServicesWithReservations({
          ids: [service.id],
        });
        return toServiceViewWeighed(listing, new Map());
      };
      expect((await viewOf()).pendingChange).toBeUndefined();

      await manager.update(
        service.id,
        {
          replicas: 2,
          tier: 'mig',
          pool: 'a100-mig',
          provisional: true,
        },
        USER,
      );
      const unconfirmed = await viewOf();
      expect(unconfirmed.pendingChange).toEqual({
        generation: 2,
        confirmBy: expect.any(String),
        createdBy: USER,
        createdAt: expect.any(String),
        previous: {
          tier: service.tier,
          pool: service.pool,
          cluster: CLUSTER,
          model: devSummariser.model,
          replicas: 1,
        },
        proposed: {
          tier: unconfirmed.placement.tier,
          pool: unconfirmed.placement.pool,
          cluster: CLUSTER,
          model: devSummariser.model,
          replicas: 2,
        },
      });
      expect(unconfirmed.pendingChange!.proposed.tier).not.toBe(service.tier);

      await manager.confirm(service.id, USER, PULL_URL);
      const confirmed = await viewOf();
      expect(confirmed.pendingChange).toMatchObject({
        pullRequest: { url: PULL_URL, number: 2, mergeBy: expect.any(String) },
      });
      expect(confirmed.pendingChange!.confirmBy).toBeUndefined();

      const change = await store.getPendingChange(service.id);
      await store.settleChange({
        changeId: change!.id,
        state: 'merged',
        actor: USER,
      });
      expect((await viewOf()).pendingChange).toBeUndefined();
    });

    it('does not read a service whose pull request is still open', async () => {
      const { manager, refresher, reads } = await setup();
      const { service } = await manager.create(
        {
          request: { ...devSummariser, name: 'proposed' },
          mode: 'gitops',
        },
        USER,
      );
      await knex('services').where({ id: service.id }).update({
        pull_request_url: 'https://git.example.com/o/r/pulls/1',
        pull_request_number: 1,
        pull_request_state: 'open',
      });
      reads.length = 0;
      await refresher.refreshStatus(service.id);
      expect(reads).toEqual([]);
    });
  },
);
