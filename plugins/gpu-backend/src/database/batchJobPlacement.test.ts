/*
 * A MultiKueue batch job's reservation follows the worker Kueue ran it on: placeBatchJob records the worker and moves
 * the held reservation to that worker's pool, at its price; on SQLite and PostgreSQL.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DatabaseGpuStore } from './DatabaseGpuStore';

jest.setTimeout(120_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const spotL4 = demoPlatformConfig.pools.find(p => p.name === 'spot-l4')!;
const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [
    ...demoPlatformConfig.pools,
    {
      ...spotL4,
      name: 'spot-l4-eu',
      pricePerNodeHour: '0.5',
      nodeLabels: {
        ...spotL4.nodeLabels,
        'gpu.example.com/pool': 'spot-l4-eu',
      },
    },
  ],
});
const TEAM = 'search';
const ACTOR = 'user:default/carol';

describe.each(databases.eachSupportedId())(
  'placing a MultiKueue batch job on its worker on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      await store.putQuota({
        team: TEAM,
        quota: {
          pools: { 'spot-l4': 2, 'spot-l4-eu': 2 },
          monthlyBudgetMicros: 10_000_000_000,
        },
        actor: 'user:default/platform-admin',
      });
    });

    it('records the worker and moves the held reservation to its pool, once', async () => {
      await store.reserveBatchJob({
        id: '00000000-0000-4000-8000-000000000001',
        name: 'ocr-b',
        namespace: 'search',
        team: TEAM,
        environment: 'dev',
        pool: 'spot-l4',
        cluster: 'batch',
        mode: 'apply',
        parallelism: 2,
        minParallelism: 1,
        gpusPerPod: 1,
        monthlyCostMicrosPerGpu: 270_100_000,
        actor: ACTOR,
      });
      const reserved = async () =>
        (await store.getQuota(TEAM))!.reservedGpuEquivalents;
      expect(await reserved()).toMatchObject({ 'spot-l4': 2 });

      const placed = await store.placeBatchJob({
        id: '00000000-0000-4000-8000-000000000001',
        workerCluster: 'prod-eu',
        pool: 'spot-l4-eu',
        monthlyCostMicrosPerGpu: 365_000_000,
        actor: 'system:gpu-batch-release',
      });
      expect(placed).toMatchObject({
        cluster: 'batch',
        workerCluster: 'prod-eu',
        pool: 'spot-l4-eu',
        state: 'active',
      });
      const now = await reserved();
      expect(now['spot-l4'] ?? 0).toBe(0);
      expect(now['spot-l4-eu']).toBe(2);
      expect((await store.getQuota(TEAM))!.reservedMonthlyCostMicros).toBe(
        2 * 365_000_000,
      );
      const [active] = await store.listActiveBatchJobs();
      expect(active).toMatchObject({
        workerCluster: 'prod-eu',
        pool: 'spot-l4-eu',
      });
      // Placed already: nothing more; once released, nothing either.
      expect(
        await store.placeBatchJob({
          id: '00000000-0000-4000-8000-000000000001',
          workerCluster: 'prod-eu',
          pool: 'spot-l4-eu',
          monthlyCostMicrosPerGpu: 365_000_000,
          actor: 'system:gpu-batch-release',
        }),
      ).toBeUndefined();
      await store.releaseBatchJob({
        id: '00000000-0000-4000-8000-000000000001',
        reason: 'the Job completed',
        actor: 'system:gpu-batch-release',
      });
      expect(
        await store.placeBatchJob({
          id: '00000000-0000-4000-8000-000000000001',
          workerCluster: 'dev',
          pool: 'spot-l4',
          monthlyCostMicrosPerGpu: 270_100_000,
          actor: 'system:gpu-batch-release',
        }),
      ).toBeUndefined();
      const { items } = await store.listAuditEvents({
        action: 'batch-job.place',
      });
      expect(items.map(e => e.subjectId)).toEqual([
        '00000000-0000-4000-8000-000000000001',
      ]);
    });
  },
);
