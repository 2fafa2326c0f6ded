import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  HistorySpec,
  historyEnd,
  LATENCY_BUCKETS,
  podName,
  PrometheusWithHistory,
  prometheusVersionsUnderTest,
  startPrometheusWithHistory,
} from '../testUtils/prometheus';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

jest.setTimeout(120_000);

const DAY = 86400;
const STEP = 300;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform: Platform = parsePlatform(demoPlatformConfig);

/**
 * The p95 of the generated vLLM latency histogram (the same buckets for every service), in plain arithmetic: linear
 * within the bucket the 95th percentile falls in, as histogram_quantile does. 0.9 of requests finish within 2.5 s and
 * 0.98 within 5 s: 2.5 + (0.95 - 0.9) / (0.98 - 0.9) x 2.5 = 4.0625 s.
 */
function generatedP95(): number {
  let previous: [number, number] = [0, 0];
  for (const [le, share] of LATENCY_BUCKETS) {
    const bound = Number(le);
    if (share >= 0.95) {
      const [lower, below] = previous;
      return lower + ((0.95 - below) / (share - below)) * (bound - lower);
    }
    previous = [bound, share];
  }
  throw new Error('no bucket holds the 95th percentile');
}
const P95 = generatedP95();

/** Two MPS services sharing an L4 (one with a 2 s budget, one with 10 s), and a dedicated L4 with a 2 s budget. */
function history(end: number): HistorySpec {
  const shared = (name: string) => ({
    name,
    namespace: 'ml-serving',
    tier: 'mps' as const,
    pods: [{ pod: podName(name), hostname: 'l4-mps-node-1', gpu: '0' }],
    tokensPerSecond: 300,
  });
  return {
    end,
    days: 2,
    stepSeconds: STEP,
    kubeState: false,
    sharedDevices: [
      {
        hostname: 'l4-mps-node-1',
        gpu: '0',
        utilisation: { mean: 70 },
        memoryMiB: { mean: 6000 },
        totalMiB: 23034,
      },
    ],
    services: [
      shared('slow'),
      shared('lenient'),
      {
        name: 'solo',
        namespace: 'ml-serving',
        tier: 'dedicated',
        pods: [{ pod: podName('solo'), hostname: 'l4-node-1', gpu: '0' }],
        utilisation: { mean: 5 },
        memoryMiB: { mean: 3000 },
        totalMiB: 23034,
        tokensPerSecond: 30,
      },
    ],
  };
}

const prometheusVersions = prometheusVersionsUnderTest();

describe.each(prometheusVersions.available)(
  'tier advice against a latency budget, from vLLM latency history in a real Prometheus ($version)',
  binaries => {
    let prometheus: PrometheusWithHistory;
    let knex: Knex;
    let ids: Record<string, string>;
    let usage: UsageService;

    beforeAll(async () => {
      const end = historyEnd(3600);
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(history(end), { binaries }),
        databases.init('SQLITE_3'),
      ]);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const heldAt = new Date((end - 10 * DAY) * 1000).toISOString();
      const mps = {
        team: 'ml-platform',
        namespace: 'ml-serving',
        environment: 'staging',
        tier: 'mps' as const,
        pool: 'l4-mps',
        dtype: 'int4' as const,
        gpuEquivalents: 1 / 4,
        heldAt,
      };
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          { ...mps, name: 'slow', latencyBudget: { p95Seconds: 2 } },
          { ...mps, name: 'lenient', latencyBudget: { p95Seconds: 10 } },
          {
            name: 'solo',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'dev',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            model: 'llama-3.2-3b',
            dtype: 'int4',
            gpuEquivalents: 1,
            latencyBudget: { p95Seconds: 2 },
            heldAt,
          },
        ],
      });
      const now = DateTime.fromSeconds(end, { zone: 'utc' });
      usage = new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots: new CostSnapshotStore(knex),
        quotas: store,
        prometheus: readPrometheusConfig(
          new ConfigReader({
            gpu: { prometheus: { baseUrl: prometheus.url, timeout: 5000 } },
          }),
        ),
        now: () => now,
      });
    });

    afterAll(async () => {
      await prometheus?.stop();
    });

    it('advises an MPS service whose measured p95 breaks its budget up to an isolated slice, saying p95 vs budget', async () => {
      const slow = await usage.serviceUsage(ids.slow, '24h');
      const slowCost = await usage.serviceCost(ids.slow, '24h');
      expect(slow.latencyBudget).toMatchObject({ state: 'over' });
      expect(slow.latencyBudget!.measuredP95Seconds).toBeCloseTo(P95, 3);
      const advice = slowCost.recommendations.filter(
        r => r.reason === 'latency-budget-broken',
      );
      expect(advice).toHaveLength(1);
      expect(advice[0]).toMatchObject({
        kind: 'move-up',
        evidence: { latencyBudgetP95Seconds: 2 },
      });
      expect(advice[0].evidence.latencyP95Seconds).toBeCloseTo(P95, 3);
      expect(['mig', 'dedicated']).toContain(advice[0].target?.tier);
      expect(advice[0].message).toMatch(
        /^Measured p95 end-to-end latency 4\.06 s over the window is above the 2 s budget on an MPS share of l4-mps/,
      );
    });

    it('leaves a service within its budget on its share', async () => {
      const lenient = await usage.serviceUsage(ids.lenient, '24h');
      const lenientCost = await usage.serviceCost(ids.lenient, '24h');
      expect(lenient.latencyBudget).toMatchObject({ state: 'within' });
      expect(
        lenientCost.recommendations.filter(r => r.kind === 'move-up'),
      ).toEqual([]);
    });

    it('never advises an idle service over its budget down to a shared tier', async () => {
      const solo = await usage.serviceUsage(ids.solo, '24h');
      const soloCost = await usage.serviceCost(ids.solo, '24h');
      expect(solo.latencyBudget).toMatchObject({ state: 'over' });
      for (const r of soloCost.recommendations) {
        expect(['mps', 'time-sliced']).not.toContain(r.target?.tier);
      }
      expect(soloCost.recommendations.map(r => r.kind)).toContain('right-size');
    });

    it('gives the overview the same advice from its one measurement of all services', async () => {
      const overview = await usage.overview('24h');
      const advice = overview.recommendations.filter(
        r => r.reason === 'latency-budget-broken',
      );
      expect(advice.map(r => r.serviceName)).toEqual(['slow']);
      expect(
        overview.recommendations.filter(
          r =>
            r.serviceName === 'solo' &&
            (r.target?.tier === 'mps' || r.target?.tier === 'time-sliced'),
        ),
      ).toEqual([]);
    });
  },
);
