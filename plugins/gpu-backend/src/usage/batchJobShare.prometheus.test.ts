import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  groupHierarchy,
  parsePlatform,
  parseUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  historyEnd,
  HistoryService,
  podName,
  PrometheusWithHistory,
  prometheusVersionsUnderTest,
  startPrometheusWithHistory,
} from '../testUtils/prometheus';
import {
  SeededService,
  seedUsageServices,
} from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { FocusRow } from './export/focusRows';
import { storeDailySnapshots } from './snapshotTask';
import { UsageService } from './UsageService';

jest.setTimeout(600_000);

/*
 * Issue 29's 'one ledger': on spot-l4 (6 nodes of one L4 at 0.37 USD an hour), two services of two teams with DCGM and
 * vLLM history on a real Prometheus, and two batch jobs reserved through the store (one finished two days ago, one
 * still running since yesterday evening; their pods' DCGM series are in the history too, nobody's usage). Every time
 * is a quarter-hour, so plain arithmetic is exact, and the test asks for the micro-dollar: each FOCUS row, each pool's
 * day (the unallocated row plus the allocated ones is maxNodes x price x 24), the export as a whole (the node bill),
 * the ledger's month spend (what admission weighs against the budget), the team's cost, projection and budget burn,
 * the batch jobs' figures in it, and the ledger's held GPUs on the pool and against the team's quota.
 */

const HOUR = 3600;
const DAY = 86400;
const POOL = 'spot-l4';
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const prometheusVersions = prometheusVersionsUnderTest();
const spot = platform.pools.find(p => p.name === POOL)!;
/** One spot L4 GPU-hour (one GPU a node): 370,000 micro-dollars, 92,500 a quarter-hour, so every figure is exact. */
const GPU_HOUR = parseUsd(spot.pricePerNodeHour) / spot.gpusPerNode;

// Every time is a multiple of 15 minutes, the end of the history too.
const end = historyEnd(900);
const now = DateTime.fromSeconds(end, { zone: 'utc' });
const today = now.startOf('day').toSeconds();
const monthStart = now.startOf('month').toSeconds();
const monthEnd = now.startOf('month').plus({ months: 1 }).toSeconds();
/** The export: from a week ago or the start of the month, whichever is earlier, to yesterday. */
const firstDay = Math.min(monthStart, today - 6 * DAY);
const lastDay = today - DAY;
const iso = (t: number) => new Date(t * 1000).toISOString();
const isoDay = (t: number) => iso(t).slice(0, 10);

/** What holds GPUs on spot-l4, in GPUs, from `from` to `until` (still held when absent). */
interface Holding {
  name: string;
  team: string;
  gpus: number;
  from: number;
  until?: number;
  batch?: boolean;
}

const HOLDINGS: Holding[] = [
  // A service of search, held (and running) since five days ago, 03:15.
  {
    name: 'embed',
    team: 'search',
    gpus: 2,
    from: today - 5 * DAY + 3 * HOUR + 900,
  },
  // A GitOps service of ml-platform, from three days ago, 10:45.
  {
    name: 'rerank',
    team: 'ml-platform',
    gpus: 1,
    from: today - 3 * DAY + 10 * HOUR + 2700,
  },
  // Batch jobs of search: one held 6.5 hours two days ago, one submitted yesterday evening and still running.
  {
    name: 'ocr-nightly',
    team: 'search',
    gpus: 2,
    from: today - 2 * DAY + HOUR,
    until: today - 2 * DAY + 7 * HOUR + 1800,
    batch: true,
  },
  {
    name: 'ocr-backlog',
    team: 'search',
    gpus: 1,
    from: today - DAY + 20 * HOUR,
    batch: true,
  },
];

/** Plain arithmetic: what a holding costs over [from, to), micro-dollars (an integer: quarter-hours only). */
function heldMicros(h: Holding, from: number, to: number): number {
  const seconds = Math.max(
    0,
    Math.min(to, h.until ?? Infinity) - Math.max(from, h.from),
  );
  return (h.gpus * GPU_HOUR * seconds) / HOUR;
}

const ofTeam = (team: string) => HOLDINGS.filter(h => h.team === team);
const teamMicros = (team: string, from: number, to: number) =>
  ofTeam(team).reduce((t, h) => t + heldMicros(h, from, to), 0);

/** The services' DCGM and vLLM history, and the batch jobs' pods' DCGM (attributed to no service). */
const UTILISATION: Record<string, number> = { embed: 0.6, rerank: 0.35 };
const history: HistoryService[] = HOLDINGS.map(h => ({
  name: h.name,
  namespace: h.team === 'search' ? 'search' : 'ml-serving',
  tier: 'dedicated',
  pods: Array.from({ length: h.gpus }, (_, i) => ({
    pod: podName(h.name, i),
    hostname: `${h.name}-node-${i}`,
    gpu: '0',
    from: h.from + 300,
    ...(h.until ? { until: h.until } : {}),
  })),
  utilisation: { mean: (UTILISATION[h.name] ?? 0.9) * 100 },
  memoryMiB: { mean: 12000 },
  totalMiB: 23034,
  tokensPerSecond: 40,
  ...(h.batch ? { withoutVllm: true } : {}),
}));

const services: SeededService[] = HOLDINGS.filter(h => !h.batch).map(h => ({
  name: h.name,
  team: h.team,
  namespace: h.team === 'search' ? 'search' : 'ml-serving',
  environment: 'dev',
  tier: 'dedicated',
  pool: POOL,
  gpuEquivalents: h.gpus,
  replicas: h.gpus,
  heldAt: iso(h.from),
  ...(h.name === 'rerank' ? { mode: 'gitops' as const } : {}),
}));

const micros = (rows: FocusRow[]) => rows.reduce((t, r) => t + r.costMicros, 0);

describe('Prometheus versions under test', () => {
  it('has every required version, and at least one', () => {
    expect(prometheusVersions.missing).toEqual([]);
    expect(prometheusVersions.available.length).toBeGreaterThan(0);
  });
});

describe.each(prometheusVersions.available)(
  'a batch job and two services sharing spot-l4, Prometheus $version',
  binaries => {
    let prometheus: PrometheusWithHistory;
    let knex: Knex;
    let store: DatabaseGpuStore;
    let snapshots: CostSnapshotStore;
    const batchIds: Record<string, string> = {};

    function usageService() {
      return new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots,
        quotas: store,
        prometheus: readPrometheusConfig(
          new ConfigReader({
            gpu: { prometheus: { baseUrl: prometheus.url, timeout: 20000 } },
          }),
        ),
        now: () => now,
      });
    }

    beforeAll(async () => {
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(
          { end, days: 8, stepSeconds: 300, services: history },
          { binaries, maxBlockDuration: '240h' },
        ),
        databases.init('SQLITE_3'),
      ]);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
        // The ledger's now is the test's.
        clock: () => now.toJSDate(),
      });
      snapshots = new CostSnapshotStore(knex);
      await seedUsageServices({ store, knex, platform, services });
      // The batch jobs reserve through the ledger (under the team's quota and budget), then their times are moved to
      // the scenario's, as seedUsageServices does for services; the finished one is released by the store.
      for (const h of HOLDINGS.filter(x => x.batch)) {
        const id = `0b6d0f38-7a53-4f0e-9a57-5d1c1c0e000${
          Object.keys(batchIds).length + 1
        }`;
        batchIds[h.name] = id;
        const reserved = await store.reserveBatchJob({
          id,
          name: h.name,
          namespace: 'search',
          team: h.team,
          environment: 'dev',
          pool: POOL,
          mode: 'apply',
          parallelism: h.gpus,
          minParallelism: h.gpus,
          gpusPerPod: 1,
          monthlyCostMicrosPerGpu: GPU_HOUR * platform.hoursPerMonth,
          actor: 'user:default/carol',
        });
        if (reserved.podsAtOnce !== h.gpus) {
          throw new Error(`${h.name} holds ${reserved.podsAtOnce} pods`);
        }
        if (h.until) {
          await store.releaseBatchJob({
            id,
            reason: 'the Job completed',
            actor: 'system:gpu-batch-release',
          });
        }
        await knex('batch_jobs')
          .where({ id })
          .update({
            submitted_at: new Date(h.from * 1000),
            ...(h.until ? { finished_at: new Date(h.until * 1000) } : {}),
          });
        await knex('reservations')
          .where({ batch_job_id: id })
          .update({
            created_at: new Date(h.from * 1000),
            held_at: new Date(h.from * 1000),
            ...(h.until ? { released_at: new Date(h.until * 1000) } : {}),
          });
      }
      await storeDailySnapshots({ usage: usageService(), snapshots, now });
    });

    afterAll(async () => {
      await prometheus?.stop();
    });

    async function exportRows() {
      const result = await usageService().costExport(
        isoDay(firstDay),
        isoDay(lastDay),
        async () => groupHierarchy([]),
      );
      expect(result.firstDay).toBe(isoDay(firstDay));
      expect(result.lastDay).toBe(isoDay(lastDay));
      return result.rows;
    }

    it("charges every service and batch job of the pool its plain arithmetic in the FOCUS export, and each day's unallocated row plus the allocated rows is pools x price x 24", async () => {
      const rows = await exportRows();
      const days = Math.round((lastDay - firstDay) / DAY) + 1;
      // Every pool, every day: its rows are maxNodes x node-hour price x 24; the whole export is the node bill.
      const bill = platform.pools.reduce(
        (t, p) => t + parseUsd(p.pricePerNodeHour) * p.maxNodes * 24,
        0,
      );
      expect(micros(rows)).toBe(bill * days);
      for (let d = firstDay; d <= lastDay; d += DAY) {
        const ofDay = rows.filter(
          r => r.chargePeriodStart === iso(d).replace('.000Z', 'Z'),
        );
        for (const pool of platform.pools) {
          const ofPool = ofDay.filter(r => r.tags.pool === pool.name);
          expect(micros(ofPool)).toBe(
            parseUsd(pool.pricePerNodeHour) * pool.maxNodes * 24,
          );
        }
        const ofSpot = ofDay.filter(r => r.tags.pool === POOL);
        // Each holding's row is its GPUs x hours held that day x the GPU-hour price, to the micro-dollar.
        for (const h of HOLDINGS) {
          const expected = heldMicros(h, d, d + DAY);
          const row = ofSpot.filter(r => r.resourceName === h.name);
          expect([h.name, isoDay(d), micros(row)]).toEqual([
            h.name,
            isoDay(d),
            expected,
          ]);
          if (expected === 0) continue;
          expect(row).toEqual([
            expect.objectContaining({
              charge: 'allocated',
              team: h.team,
              resourceType: h.batch ? 'GPU batch job' : 'GPU model service',
              ...(h.batch ? { resourceId: batchIds[h.name] } : {}),
            }),
          ]);
        }
        const unallocated = ofSpot.filter(r => r.charge === 'unallocated');
        expect(unallocated).toHaveLength(1);
        expect(
          unallocated[0].costMicros +
            HOLDINGS.reduce((t, h) => t + heldMicros(h, d, d + DAY), 0),
        ).toBe(spot.maxNodes * 24 * parseUsd(spot.pricePerNodeHour));
        expect(micros(ofSpot)).toBe(
          unallocated[0].costMicros +
            micros(ofSpot.filter(r => r.charge === 'allocated')),
        );
      }
    });

    it.each(['search', 'ml-platform'])(
      "agrees on %s's month: the ledger's month spend, the team cost and its budget burn, and the export's rows",
      async team => {
        const usage = usageService();
        const [cost, ledger, rows] = await Promise.all([
          usage.teamCost(team, 'P7D'),
          store.getMonthSpendSnapshot(team, 0),
          exportRows(),
        ]);
        // Plain arithmetic.
        const monthToDate = teamMicros(team, monthStart, end);
        const rest = ofTeam(team)
          .filter(h => !h.until)
          .reduce((t, h) => t + heldMicros(h, end, monthEnd), 0);
        expect(ledger.monthToDate).toBe(monthToDate);
        expect(ledger.heldRestOfMonth).toBe(rest);
        // The team's cost: the same month, its projection, and the budget burn admission weighs.
        expect(cost.monthToDateMicros).toBe(monthToDate);
        expect(cost.projectedMonthMicros).toBe(monthToDate + rest);
        expect(cost.budgetBurn).toBe(monthToDate / cost.monthlyBudgetMicros);
        expect(cost.allocationMicros).toBe(
          teamMicros(team, end - 7 * DAY, end),
        );
        // The export: the team's rows of this month's days, plus today so far, are its month to date.
        const exported = micros(
          rows.filter(
            r =>
              r.team === team &&
              Date.parse(r.chargePeriodStart) >= monthStart * 1000,
          ),
        );
        expect(exported + teamMicros(team, today, end)).toBe(
          cost.monthToDateMicros,
        );
        // Each batch job's figures are its export rows (and today's part).
        for (const h of ofTeam(team).filter(x => x.batch)) {
          const job = cost.batchJobs?.find(j => j.name === h.name);
          const ofJob = rows.filter(r => r.resourceId === batchIds[h.name]);
          expect(job).toEqual(
            expect.objectContaining({
              batchId: batchIds[h.name],
              gpuEquivalents: h.until ? 0 : h.gpus,
              allocationMicros: heldMicros(h, end - 7 * DAY, end),
              monthToDateMicros: heldMicros(h, monthStart, end),
            }),
          );
          expect(
            micros(
              ofJob.filter(
                r => Date.parse(r.chargePeriodStart) >= monthStart * 1000,
              ),
            ) + heldMicros(h, today, end),
          ).toBe(job!.monthToDateMicros);
        }
        // Services are measured on Prometheus (the batch jobs' busy GPUs are nobody's usage): usage and idle add up
        // to their allocation, and usage is their utilisation of it.
        for (const service of cost.services) {
          expect(service.usageMicros! + service.idleMicros!).toBe(
            service.allocationMicros,
          );
          const share = service.usageMicros! / service.allocationMicros;
          expect(Math.abs(share - UTILISATION[service.name])).toBeLessThan(
            0.01,
          );
        }
        expect(cost.services.map(s => s.name)).toEqual(
          ofTeam(team)
            .filter(h => !h.batch)
            .map(h => h.name),
        );
      },
    );

    it("holds on the pool, in the ledger, what the services and the running batch job hold, and the team's quota counts it", async () => {
      const held = await store.getPoolHeldSnapshot(0);
      const gpus = HOLDINGS.filter(h => !h.until).reduce(
        (t, h) => t + h.gpus,
        0,
      );
      expect(held[POOL].units).toBe(gpus * 5040);
      // search: embed's 2 GPUs and ocr-backlog's 1 (the finished job holds nothing); ml-platform: rerank's.
      const search = await store.getLedgerSnapshot('search', 0);
      expect(search!.reservedGpuUnits[POOL]).toBe(3 * 5040);
      const quota = await store.getQuota('search');
      expect(quota!.reservedGpuEquivalents[POOL]).toBe(3);
      const mlPlatform = await store.getLedgerSnapshot('ml-platform', 0);
      expect(mlPlatform!.reservedGpuUnits[POOL]).toBe(5040);
    });
  },
);
