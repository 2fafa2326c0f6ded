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
import { createQuoteService } from './QuoteService';
import { seedQuotas } from './seedQuotas';
import { ServiceManager } from './ServiceManager';
import { ServiceStatusRefresher } from './ServiceStatusRefresher';

jest.setTimeout(60_000);

const USER = 'user:default/alice';
const CLUSTER = 'gitops-eu';

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
