import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  Platform,
  Recommendation,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  HistoryGap,
  HistoryService,
  HistorySpec,
  historyEnd,
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
import { UsageService } from './UsageService';

jest.setTimeout(120_000);

const HOUR = 3600;
const DAY = 86400;
const STEP = 300;
const DAYS = 2;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform: Platform = parsePlatform(demoPlatformConfig);

/**
 * Idle gaps of a service that serves for the first hour of every four (shifted by `offsetHours`) and is idle for the
 * other three: its token counters stay flat and no request runs then.
 */
function burstsOf(end: number, offsetHours: number): HistoryGap[] {
  const gaps: HistoryGap[] = [];
  const start = end - DAYS * DAY;
  for (let block = start - 4 * HOUR; block < end; block += 4 * HOUR) {
    const busyFrom = block + offsetHours * HOUR;
    gaps.push({ after: busyFrom + HOUR, until: busyFrom + 4 * HOUR });
  }
  return gaps;
}

/**
 * - An L4 shared by MPS (dcgm-exporter copies the device's 70% to each pod): `chat` (dev) and `chat-eu` (staging)
 *   each serve one request at a time for one hour in four, at different hours; `feed` serves 4 at once all the time.
 * - A T4 time-sliced (90%): `search` serves 6 requests at once all the time, `rerank` one at a time all the time.
 * - A second L4 with MPS holding `assistant`, whose pods export no vLLM metrics (no tokens, no running requests).
 */
function history(end: number): HistorySpec {
  const on = (
    name: string,
    tier: 'mps' | 'time-sliced',
    hostname: string,
    traffic: Partial<HistoryService>,
  ): HistoryService => ({
    name,
    namespace: 'ml-serving',
    tier,
    pods: [{ pod: podName(name), hostname, gpu: '0' }],
    tokensPerSecond: 0,
    ...traffic,
  });
  return {
    end,
    days: DAYS,
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
      {
        hostname: 't4-ts-node-1',
        gpu: '0',
        utilisation: { mean: 90 },
        memoryMiB: { mean: 6000 },
        totalMiB: 15360,
      },
      {
        hostname: 'l4-mps-node-2',
        gpu: '0',
        utilisation: { mean: 60 },
        memoryMiB: { mean: 3000 },
        totalMiB: 23034,
      },
    ],
    services: [
      on('chat', 'mps', 'l4-mps-node-1', {
        tokensPerSecond: 300,
        running: 1,
        idle: burstsOf(end, 0),
      }),
      on('chat-eu', 'mps', 'l4-mps-node-1', {
        tokensPerSecond: 300,
        running: 1,
        idle: burstsOf(end, 2),
      }),
      on('feed', 'mps', 'l4-mps-node-1', { tokensPerSecond: 100, running: 4 }),
      on('search', 'time-sliced', 't4-ts-node-1', {
        tokensPerSecond: 200,
        running: 6,
      }),
      on('rerank', 'time-sliced', 't4-ts-node-1', {
        tokensPerSecond: 200,
        running: 1,
      }),
      on('assistant', 'mps', 'l4-mps-node-2', { withoutVllm: true }),
    ],
  };
}

const prometheusVersions = prometheusVersionsUnderTest();

const switches = (recommendations: Recommendation[]) =>
  recommendations.filter(r => r.kind === 'switch-sharing');

describe.each(prometheusVersions.available)(
  'MPS or time-slicing advised from DCGM and vLLM history in a real Prometheus ($version)',
  binaries => {
    let prometheus: PrometheusWithHistory;
    let knex: Knex;
    let ids: Record<string, string>;
    let usage: UsageService;

    beforeAll(async () => {
      const end = historyEnd(HOUR);
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(history(end), { binaries }),
        databases.init('SQLITE_3'),
      ]);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const heldAt = new Date((end - 10 * DAY) * 1000).toISOString();
      // Llama-3.2-3B in int4 at max-model-len 2048 fits a quarter of an L4 and of a T4.
      const share = (
        name: string,
        tier: 'mps' | 'time-sliced',
        environment = 'dev',
      ): SeededService => ({
        name,
        team: 'ml-platform',
        namespace: 'ml-serving',
        environment,
        tier,
        pool: tier === 'mps' ? 'l4-mps' : 't4-timeslice',
        model: 'llama-3.2-3b',
        dtype: 'int4',
        maxModelLen: 2048,
        gpuEquivalents: 1 / 4,
        heldAt,
      });
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          share('chat', 'mps'),
          share('chat-eu', 'mps', 'staging'),
          share('feed', 'mps'),
          share('search', 'time-sliced'),
          share('rerank', 'time-sliced'),
          share('assistant', 'mps'),
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

    it('advises a bursty service on MPS to time-slicing, from its measured steps and running requests', async () => {
      const cost = await usage.serviceCost(ids.chat, '24h');
      const advice = switches(cost.recommendations);
      expect(advice).toHaveLength(1);
      expect(advice[0]).toMatchObject({
        reason: 'bursty-traffic',
        target: { tier: 'time-sliced', pool: 't4-timeslice' },
        evidence: { peakStepUtilisation: 1, runningRequestsWhileServing: 1 },
      });
      // 24 hours of 15-minute steps, serving one hour in four: near idle at about three quarters of them.
      const { evidence } = advice[0];
      expect(evidence.measuredSteps).toBeGreaterThanOrEqual(95);
      expect(evidence.idleStepShare).toBeGreaterThan(0.6);
      expect(evidence.idleStepShare).toBeLessThan(0.8);
      expect(advice[0].message).toMatch(
        /^Near idle \(below 10% of its share\) at \d+% of the \d+ steps measured, its busiest step at 100% of its share, 1\.0 requests running at once while it served: under MPS each burst gets 1\/4 of the GPU's threads/,
      );
      // A quarter of an L4 against a quarter of a T4, per month.
      expect(advice[0].monthlySavingMicros).toBeCloseTo(
        (0.8048 / 4 - 0.526 / 4) * 730 * 1e6,
        -1,
      );
      // Its low mean would right-size it to the same time-sliced share: said once, by the switch.
      expect(
        cost.recommendations.filter(r => r.target?.tier === 'time-sliced'),
      ).toHaveLength(1);
    });

    it('advises a steady concurrent service on time-slicing to MPS', async () => {
      const cost = await usage.serviceCost(ids.search, '24h');
      const advice = switches(cost.recommendations);
      expect(advice).toHaveLength(1);
      expect(advice[0]).toMatchObject({
        reason: 'steady-concurrent-traffic',
        target: { tier: 'mps', pool: 'l4-mps' },
        evidence: {
          idleStepShare: 0,
          peakStepUtilisation: 1,
          meanStepUtilisation: 1,
          runningRequestsWhileServing: 6,
        },
      });
      expect(advice[0].message).toMatch(
        /^Busy at 100% of the \d+ steps measured, steadily \(mean 100% of its share, busiest step 100%\), 6\.0 requests running at once while it served/,
      );
      expect(advice[0].monthlySavingMicros).toBeLessThan(0);
    });

    it('advises nothing for traffic that suits its mode, where the other tier is not allowed, or without vLLM figures', async () => {
      for (const name of ['feed', 'rerank', 'chat-eu', 'assistant']) {
        const cost = await usage.serviceCost(ids[name], '24h');
        expect({ name, advice: switches(cost.recommendations) }).toEqual({
          name,
          advice: [],
        });
      }
      // chat-eu is as bursty as chat (near idle at most of its steps), but staging allows no time-sliced pool.
      const chatEu = await usage.serviceUsage(ids['chat-eu'], '24h');
      const steps = chatEu.series.utilisation;
      expect(steps.length).toBeGreaterThanOrEqual(95);
      expect(
        steps.filter(p => p.value < 0.1).length / steps.length,
      ).toBeGreaterThan(0.6);
      // assistant's pods export no vLLM metrics: its steps are the device's split evenly, and nothing says how many
      // requests it runs at once.
      const assistant = await usage.serviceUsage(ids.assistant, '24h');
      expect(assistant.utilisation?.method).toBe('apportioned-evenly');
      expect(assistant.requests).toBeUndefined();
    });

    it('gives the overview the same advice from its one measurement of all services', async () => {
      const overview = await usage.overview('24h');
      const advice = switches(overview.recommendations);
      expect(
        advice.map(r => [r.serviceName, r.reason, r.target?.tier]).sort(),
      ).toEqual([
        ['chat', 'bursty-traffic', 'time-sliced'],
        ['search', 'steady-concurrent-traffic', 'mps'],
      ]);
    });
  },
);
