/*
 * Cost accrues from when the workload runs, as its cluster said: a held reservation is spend while it runs and
 * reserved while it does not; a dry run is reserved only; GitOps (a cluster Backstage does not read) spends from the
 * reservation. Expected micro-dollars are the pool's price (l4-ondemand: $0.8048 per node-hour, one GPU per node) x
 * hours, by hand.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

// PostgreSQL runs when BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is set.
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const now = DateTime.fromISO('2026-11-20T13:00:00Z', { zone: 'utc' });
const GPU_HOUR_MICROS = 804_800;
/** Micro-dollars of one L4 for `minutes`, rounded once. */
const l4 = (minutes: number) => Math.round((GPU_HOUR_MICROS * minutes) / 60);
/** From 2026-11-20T13:00 to 2026-12-01T00:00. */
const REST_OF_MONTH_MINUTES = (10 * 24 + 11) * 60;

const service = {
  team: 'ml-platform',
  namespace: 'ml-serving',
  environment: 'production',
  tier: 'dedicated' as const,
  pool: 'l4-ondemand',
  gpuEquivalents: 1,
};

describe.each(databases.eachSupportedId())(
  'cost accrual from the cluster status on %p',
  id => {
    let usage: UsageService;
    let ids: Record<string, string>;

    beforeAll(async () => {
      const knex: Knex = await databases.init(id);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          {
            ...service,
            name: 'summariser',
            heldAt: '2026-11-20T10:00:00Z',
            runs: [
              {
                startedAt: '2026-11-20T10:20:00Z',
                stoppedAt: '2026-11-20T12:00:00Z',
              },
            ],
            releasedAt: '2026-11-20T12:00:00Z',
          },
          {
            ...service,
            name: 'notebook',
            mode: 'dry-run',
            heldAt: '2026-11-20T00:00:00Z',
          },
          {
            ...service,
            name: 'queued',
            heldAt: '2026-11-20T11:00:00Z',
            runs: [],
          },
          {
            ...service,
            name: 'published',
            mode: 'gitops',
            heldAt: '2026-11-20T12:00:00Z',
          },
        ],
      });
      usage = new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots: new CostSnapshotStore(knex),
        quotas: {
          getQuota: async () => undefined,
          listQuotas: async () => [],
        },
        now: () => now,
      });
    });

    it('spends 100 minutes of a service applied at 10:00, running at 10:20 and torn down at 12:00; 20 are reserved', async () => {
      const cost = await usage.serviceCost(ids.summariser, '24h');
      expect(cost.accrualBasis).toBe('cluster-status');
      expect(cost.allocationMicros).toBe(l4(100));
      expect(cost.allocationMicros).toBe(1_341_333);
      expect(cost.reservedMicros).toBe(l4(20));
      expect(cost.reservedMicros).toBe(268_267);
      expect(cost.allocatedHours).toBeCloseTo(100 / 60, 10);
      expect(cost.reservedHours).toBeCloseTo(20 / 60, 10);
      expect(cost.workload).toEqual({
        running: false,
        since: '2026-11-20T12:00:00.000Z',
      });
      expect(cost.monthToDate).toMatchObject({
        allocationMicros: l4(100),
        reservedMicros: l4(20),
      });
      expect(cost.projectedMonthMicros).toBe(l4(100));
      expect(cost.daily.find(d => d.date === '2026-11-20')).toMatchObject({
        allocationMicros: l4(100),
        reservedMicros: l4(20),
      });
    });

    it('shows a dry run as reserved, never as spend', async () => {
      const cost = await usage.serviceCost(ids.notebook, '24h');
      expect(cost.accrualBasis).toBe('dry-run');
      expect(cost.allocationMicros).toBe(0);
      expect(cost.reservedMicros).toBe(l4(13 * 60));
      expect(cost.monthToDate.allocationMicros).toBe(0);
      expect(cost.projectedMonthMicros).toBe(0);
      expect(cost.monthlyAllocationMicros).toBeGreaterThan(0);
      expect(cost.workload).toBeUndefined();
    });

    it('keeps a workload Kueue has not admitted reserved, and projects the month as if it runs', async () => {
      const cost = await usage.serviceCost(ids.queued, '24h');
      expect(cost.allocationMicros).toBe(0);
      expect(cost.reservedMicros).toBe(l4(2 * 60));
      expect(cost.workload).toEqual({
        running: false,
        since: '2026-11-20T11:00:00.000Z',
      });
      expect(cost.projectedMonthMicros).toBe(l4(REST_OF_MONTH_MINUTES));
    });

    it('spends from the reservation in GitOps mode, saying so', async () => {
      const cost = await usage.serviceCost(ids.published, '24h');
      expect(cost.accrualBasis).toBe('reservation');
      expect(cost.allocationMicros).toBe(l4(60));
      expect(cost.reservedMicros).toBe(0);
      expect(cost.workload).toBeUndefined();
    });

    it('sums the services exactly in the team cost and the overview', async () => {
      const spend = l4(100) + l4(60);
      const reserved = l4(20) + l4(13 * 60) + l4(2 * 60);
      const team = await usage.teamCost('ml-platform', '24h');
      expect(team.allocationMicros).toBe(spend);
      expect(team.reservedMicros).toBe(reserved);
      expect(team.monthToDateMicros).toBe(spend);
      expect(team.projectedMonthMicros).toBe(
        l4(100) + l4(60) + 2 * l4(REST_OF_MONTH_MINUTES),
      );
      const services = await Promise.all(
        Object.values(ids).map(serviceId =>
          usage.serviceCost(serviceId, '24h'),
        ),
      );
      const sum = (pick: (c: (typeof services)[number]) => number) =>
        services.reduce((total, c) => total + pick(c), 0);
      expect(team.allocationMicros).toBe(sum(c => c.allocationMicros));
      expect(team.reservedMicros).toBe(sum(c => c.reservedMicros));
      expect(team.monthToDateMicros).toBe(
        sum(c => c.monthToDate.allocationMicros),
      );
      expect(team.projectedMonthMicros).toBe(sum(c => c.projectedMonthMicros));

      const overview = await usage.overview('24h');
      const row = overview.teams.find(t => t.team === 'ml-platform');
      expect(row).toMatchObject({
        allocationMicros: spend,
        reservedMicros: reserved,
        monthToDateMicros: spend,
        projectedMonthMicros: team.projectedMonthMicros,
      });
    });
  },
);
