/*
 * Cost accrual over a service's life, through the code that records it: applied at 10:00, the status refresh at
 * 10:25 finds its Deployment available since 10:20, torn down at 12:00. Only the wall clock is simulated (Date; the
 * store stamps its writes with it), timers are real. Expected: 100 minutes of spend and 20 reserved, from the pool's
 * $0.8048 per L4-hour.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  ServiceClusterStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { ClusterStatusReader } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { listRunPeriods, RunPeriodStore } from '../database/runPeriods';
import { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

// PostgreSQL runs when BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is set.
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const at = (time: string) => new Date(`2026-11-20T${time}:00.000Z`);

/** What the cluster says at 10:25: one replica, available since 10:20. */
const available: ServiceClusterStatus = {
  cluster: 'gpu-eu',
  observedAt: at('10:25').toISOString(),
  deployment: {
    name: 'summariser',
    namespace: 'ml-serving',
    exists: true,
    replicas: 1,
    currentReplicas: 1,
    updatedReplicas: 1,
    readyReplicas: 1,
    availableReplicas: 1,
    available: true,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastTransitionTime: at('10:20').toISOString(),
      },
    ],
  },
};

describe.each(databases.eachSupportedId())(
  'cost accrual over a service life on %p',
  id => {
    afterEach(() => jest.useRealTimers());

    it('spends from the first available replica to the teardown, and reserves the rest', async () => {
      const knex = await databases.init(id);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          {
            name: 'summariser',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: 1,
            heldAt: at('10:00').toISOString(),
            runs: [],
          },
        ],
      });
      const serviceId = ids.summariser;
      // Applied at 10:00: starting, waiting for the Deployment.
      await knex('services')
        .where({ id: serviceId })
        .update({ status: 'starting', updated_at: at('10:00') });

      jest.useFakeTimers({
        now: at('10:25'),
        doNotFake: [
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'requestIdleCallback',
          'cancelIdleCallback',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
        ],
      });
      const refresher = new ServiceStatusRefresher({
        store,
        statusReader: {
          cluster: 'gpu-eu',
          read: async () => available,
        } as unknown as ClusterStatusReader,
        runs: new RunPeriodStore(knex),
        logger: mockServices.logger.mock(),
      });
      expect((await refresher.refreshStatus(serviceId)).service.status).toBe(
        'ready',
      );

      jest.setSystemTime(at('12:00'));
      const ready = (await store.getService(serviceId))!;
      await store.updateServiceStatus({
        id: serviceId,
        status: 'deleted',
        reason: 'Deleted',
        statusReason: 'torn down',
        releaseReservation: true,
        expectedStatus: ['ready'],
        expectedUpdatedAt: ready.updatedAt,
        actor: 'user:default/alice',
      });
      jest.useRealTimers();

      expect((await listRunPeriods(knex, [serviceId])).get(serviceId)).toEqual([
        {
          serviceId,
          startedAt: at('10:20').toISOString(),
          startedBasis: 'deployment-available',
          stoppedAt: at('12:00').toISOString(),
          stopReason: 'deleted: torn down',
        },
      ]);
      const usage = new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots: new CostSnapshotStore(knex),
        quotas: {
          getQuota: async () => undefined,
          listQuotas: async () => [],
        },
        now: () => DateTime.fromJSDate(at('13:00'), { zone: 'utc' }),
      });
      const cost = await usage.serviceCost(serviceId, '24h');
      // $0.8048 per hour: 100 minutes = 1.341333..., 20 minutes = 0.268266...
      expect(cost.allocationMicros).toBe(1_341_333);
      expect(cost.reservedMicros).toBe(268_267);
      expect(cost.monthToDate.allocationMicros).toBe(1_341_333);
      expect(cost.workload).toEqual({
        running: false,
        since: at('12:00').toISOString(),
      });
      const team = await usage.teamCost('ml-platform', '24h');
      expect(team.allocationMicros).toBe(1_341_333);
      expect(team.reservedMicros).toBe(268_267);
    });
  },
);
