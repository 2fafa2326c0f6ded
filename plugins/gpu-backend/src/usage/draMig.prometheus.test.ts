import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  HistorySpec,
  historyEnd,
  podName,
  PrometheusWithHistory,
  prometheusVersionsUnderTest,
  sampleTimes,
  startPrometheusWithHistory,
  waveAt,
  Wave,
} from '../testUtils/prometheus';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { storeDailySnapshots } from './snapshotTask';
import { UsageService } from './UsageService';

jest.setTimeout(180_000);

const STEP = 300;
const DAY = 86400;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const prometheusVersions = prometheusVersionsUnderTest();

/** a100-mig: 27.447 per node-hour, 8 A100s per node; the services below hold 1/7 (1g.10gb) and 2/7 (2g.20gb) of a GPU. */
const A100_GPU_HOUR = 27.447 / 8;
/** The whole A100 under `translator`'s instance: busy, with most of its memory used by other instances. */
const PARENT: { utilisation: Wave; memoryMiB: Wave; totalMiB: number } = {
  utilisation: { mean: 85, amplitude: 5 },
  memoryMiB: { mean: 61000, amplitude: 1000 },
  totalMiB: 81920,
};
/** `translator`'s own MIG instance (1g.10gb): far less busy than its GPU. */
const TRANSLATOR_INSTANCE: Wave = { mean: 20, amplitude: 4 };
/** `classifier`'s MIG instance (2g.20gb), on a node whose exporter labels the instance. */
const CLASSIFIER_INSTANCE: Wave = { mean: 55, amplitude: 10 };
/** `reviewer`'s MIG instances (1g.10gb, 2 replicas): one on a node of each exporter kind. */
const REVIEWER_INSTANCE: Wave = { mean: 30, amplitude: 6 };
/** Each A100's power, watts: dcgm-exporter reports it on every MIG instance's series (and on the parent GPU's). */
const A100_WATTS = 280;
/**
 * The share of its A100 one 1g.10gb instance is charged for: the reservation's GPU-equivalents per replica (1/7 for
 * `translator`, 2/7 for `reviewer`'s 2 replicas). Its cost and its power estimate both take it.
 */
const SHARE_1G = 1 / 7;
/** The same for `classifier`'s 2g.20gb instance (2/7). */
const SHARE_2G = 2 / 7;
/**
 * What the pool's current layout weighs a 1g.10gb (2/15 of an A100 in the demo's a100-mig, by memory slices): not
 * what these services hold, so a power estimate with it would disagree with their cost.
 */
const LAYOUT_SHARE_1G = slicesFor(platform, 'a100-mig').find(
  s => s.tier === 'mig' && s.migProfile === '1g.10gb',
)!.gpuShare;

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const mean = (values: number[]) =>
  values.reduce((a, b) => a + b, 0) / values.length;
const cents = (micros: number | undefined) =>
  micros === undefined ? undefined : Math.round(micros / 1e4);
const dollarsToCents = (usd: number) => Math.round(usd * 100);

/**
 * Two MIG services allocated through DRA (ResourceClaims on the NVIDIA DRA driver, no kube-state-metrics GPU request):
 * - `translator` (1g.10gb) on a node whose dcgm-exporter (4.5.3-4.8.2) keys MIG devices by their parent GPU: its pod's
 *   labels are on a copy of the whole A100's series, its instance's own series carry no pod;
 * - `classifier` (2g.20gb) on a node whose dcgm-exporter (4.6.0-4.8.3) labels the MIG instance, as the device plugin's.
 */
function draMigHistory(end: number): HistorySpec {
  return {
    end,
    days: 2,
    stepSeconds: STEP,
    services: [
      {
        name: 'translator',
        namespace: 'ml-serving',
        tier: 'mig',
        allocation: 'dra',
        draMigLabels: 'parent-gpu',
        parentGpu: PARENT,
        pods: [
          {
            pod: podName('translator'),
            hostname: 'a100-dra-node-1',
            gpu: '2',
            migInstance: '9',
            migProfile: '1g.10gb',
          },
        ],
        utilisation: TRANSLATOR_INSTANCE,
        memoryMiB: { mean: 8000 },
        totalMiB: 9728,
        power: { mean: A100_WATTS },
        tokensPerSecond: 40,
      },
      {
        name: 'classifier',
        namespace: 'ml-serving',
        tier: 'mig',
        allocation: 'dra',
        draMigLabels: 'instance',
        podUid: true,
        pods: [
          {
            pod: podName('classifier'),
            hostname: 'a100-dra-node-2',
            gpu: '0',
            migInstance: '5',
            migProfile: '2g.20gb',
          },
        ],
        utilisation: CLASSIFIER_INSTANCE,
        memoryMiB: { mean: 15000 },
        totalMiB: 19968,
        power: { mean: A100_WATTS },
        tokensPerSecond: 60,
      },
      {
        // Two replicas: node 3's exporter labels the instance, node 4's (older) only the parent GPU.
        name: 'reviewer',
        namespace: 'ml-serving',
        tier: 'mig',
        allocation: 'dra',
        draMigLabels: 'parent-gpu',
        parentGpu: PARENT,
        pods: [
          {
            pod: podName('reviewer', 0),
            hostname: 'a100-dra-node-3',
            gpu: '1',
            migInstance: '11',
            migProfile: '1g.10gb',
            draMigLabels: 'instance',
          },
          {
            pod: podName('reviewer', 1),
            hostname: 'a100-dra-node-4',
            gpu: '6',
            migInstance: '13',
            migProfile: '1g.10gb',
          },
        ],
        utilisation: REVIEWER_INSTANCE,
        memoryMiB: { mean: 7000 },
        totalMiB: 9728,
        power: { mean: A100_WATTS },
        tokensPerSecond: 30,
      },
    ],
  };
}

describe('Prometheus versions under test', () => {
  it('has every required version, and at least one', () => {
    expect(prometheusVersions.missing).toEqual([]);
    expect(prometheusVersions.available.length).toBeGreaterThan(0);
  });
});

describe.each(prometheusVersions.available)(
  'MIG devices allocated through DRA against a real Prometheus ($version)',
  binaries => {
    let prometheus: PrometheusWithHistory;
    let spec: HistorySpec;
    let knex: Knex;
    let store: DatabaseGpuStore;
    let snapshots: CostSnapshotStore;
    let ids: Record<string, string>;
    let now: DateTime;

    function usageService() {
      return new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots,
        quotas: store,
        prometheus: readPrometheusConfig(
          new ConfigReader({
            gpu: { prometheus: { baseUrl: prometheus.url, timeout: 5000 } },
          }),
        ),
        now: () => now,
      });
    }

    /** Mean of a wave x 1/100 over the samples of (to - seconds, to], as a window reads them (`windowRange`). */
    function meanOver(wave: Wave, to: number, seconds: number) {
      return mean(
        sampleTimes(spec)
          .filter(t => t > to - seconds && t <= to)
          .map(t => round6(waveAt(wave, t) / 100)),
      );
    }

    beforeAll(async () => {
      const end = historyEnd(STEP);
      spec = draMigHistory(end);
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(spec, { binaries }),
        databases.init('SQLITE_3'),
      ]);
      now = DateTime.fromSeconds(end, { zone: 'utc' });
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      snapshots = new CostSnapshotStore(knex);
      const heldAt = new Date((end - 10 * DAY) * 1000).toISOString();
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          {
            name: 'translator',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'mig',
            pool: 'a100-mig',
            migProfile: '1g.10gb',
            gpuEquivalents: 1 / 7,
            heldAt,
          },
          {
            name: 'classifier',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'mig',
            pool: 'a100-mig',
            migProfile: '2g.20gb',
            gpuEquivalents: 2 / 7,
            heldAt,
          },
          {
            name: 'reviewer',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'mig',
            pool: 'a100-mig',
            migProfile: '1g.10gb',
            gpuEquivalents: 2 / 7,
            replicas: 2,
            heldAt,
          },
        ],
      });
    });

    afterAll(async () => {
      await prometheus?.stop();
    });

    it("holds the pod's labels on the parent GPU's series only, as the exporter wrote them", async () => {
      // Not vacuous: Prometheus has translator's pod on the whole A100's series (no GPU_I_ID), with the GPU's values.
      const query = async (promql: string) => {
        const response = await fetch(
          `${prometheus.url}/api/v1/query?query=${encodeURIComponent(
            promql,
          )}&time=${spec.end}`,
        );
        const body = await response.json();
        return body.data.result as Array<{
          metric: Record<string, string>;
          value: [number, string];
        }>;
      };
      const labelled = await query(
        `DCGM_FI_PROF_GR_ENGINE_ACTIVE{pod="${podName('translator')}"}`,
      );
      expect(labelled).toHaveLength(1);
      expect(labelled[0].metric.GPU_I_ID).toBeUndefined();
      expect(labelled[0].metric).toMatchObject({
        dra_driver_name: 'gpu.nvidia.com',
        dra_mig_profile: '1g.10gb',
        dra_device_name: 'gpu-2-mig-1g10gb-0-9',
      });
      expect(Number(labelled[0].value[1])).toBeCloseTo(
        round6(waveAt(PARENT.utilisation, spec.end) / 100),
        6,
      );
      const instance = await query(
        `DCGM_FI_PROF_GR_ENGINE_ACTIVE{Hostname="a100-dra-node-1",GPU_I_ID="9"}`,
      );
      expect(instance).toHaveLength(1);
      expect(instance[0].metric.pod).toBeUndefined();
    });

    it("says utilisation is unknown, rather than showing or billing the whole GPU's, when only the parent GPU carries the pod", async () => {
      const usage = usageService();
      const card = await usage.serviceUsage(ids.translator, '24h');
      expect(card.metrics).toMatchObject({
        state: 'partial',
        missing: ['DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'DCGM_FI_DEV_FB_USED'],
      });
      expect(card.metrics.reason).toMatch(
        /parent GPU's series .* instead of its MIG instance's .*utilisation is unknown/,
      );
      expect(card.utilisation).toBeUndefined();
      expect(card.engineActive).toBeUndefined();
      // The GPU's 61 GB are not the instance's.
      expect(card.memory).toBeUndefined();
      // The GPU's power is the estimate's input, whichever series carries the pod: the A100's watts x the share of it
      // the service is charged for (its reservation's 1/7, as the cost below), not the layout's weight (2/15).
      expect(card.powerWatts).toMatchObject({
        method: 'nominal',
        confidence: 'low',
      });
      expect(LAYOUT_SHARE_1G).not.toBeCloseTo(SHARE_1G, 3);
      expect(card.powerWatts!.value).toBeCloseTo(A100_WATTS * SHARE_1G, 3);
      // The charts hold none of the parent GPU's series (the instance's own carry no pod).
      expect(card.series.utilisation).toEqual([]);
      expect(card.series.memoryUsedBytes).toEqual([]);
      // What vLLM reports is the service's, whatever DCGM labels.
      expect(card.tokens?.generated).toBeCloseTo(40 * DAY, -3);
      expect(card.series.generatedTokensPerSecond.length).toBeGreaterThan(0);

      const cost = await usage.serviceCost(ids.translator, '24h');
      expect(cost.metrics).toMatchObject({ state: 'partial' });
      // Cost follows the allocation: 1/7 of an A100 for 24 hours, nothing split into usage and idle; the same share
      // as the power estimate's.
      expect(cents(cost.allocationMicros)).toBe(
        dollarsToCents(A100_GPU_HOUR * SHARE_1G * 24),
      );
      expect(cost.utilisation).toBeUndefined();
      expect(cost.usageMicros).toBeUndefined();
      expect(cost.idleMicros).toBeUndefined();
    });

    it('measures a DRA MIG device whose exporter labels the instance, as with the device plugin', async () => {
      const usage = usageService();
      const card = await usage.serviceUsage(ids.classifier, '24h');
      expect(card.metrics).toEqual({ state: 'available' });
      const utilisation = meanOver(CLASSIFIER_INSTANCE, spec.end, DAY);
      expect(card.utilisation).toMatchObject({
        method: 'measured-mig-instance',
        confidence: 'high',
      });
      expect(card.utilisation!.value).toBeCloseTo(utilisation, 6);
      expect(card.series.utilisation.length).toBeGreaterThan(0);
      expect(
        Math.max(...card.series.utilisation.map(p => p.value)),
      ).toBeLessThanOrEqual(0.65 + 1e-9);

      // Power as with the device plugin: the instance's series carries the A100's watts, x the 2/7 it is charged for.
      expect(card.powerWatts).toMatchObject({
        method: 'nominal',
        confidence: 'low',
      });
      expect(card.powerWatts!.value).toBeCloseTo(A100_WATTS * SHARE_2G, 3);

      const cost = await usage.serviceCost(ids.classifier, '24h');
      const allocation = A100_GPU_HOUR * SHARE_2G * 24;
      expect(cents(cost.allocationMicros)).toBe(dollarsToCents(allocation));
      expect(cents(cost.usageMicros)).toBe(
        dollarsToCents(allocation * utilisation),
      );
    });

    it('measures only the replicas whose exporter labels the instance, and says so, when the exporters of its nodes differ', async () => {
      const usage = usageService();
      const card = await usage.serviceUsage(ids.reviewer, '24h');
      expect(card.metrics).toMatchObject({
        state: 'partial',
        missing: ['DCGM_FI_PROF_GR_ENGINE_ACTIVE', 'DCGM_FI_DEV_FB_USED'],
      });
      expect(card.metrics.reason).toContain('1 of 2 pods');
      expect(card.metrics.reason).toContain('a100-dra-node-4');
      expect(card.metrics.reason).toContain(
        `of ${podName('reviewer', 0)} only`,
      );
      // The measured replica's instance, not the A100's 85% averaged in; measured over half of what it holds.
      const utilisation = meanOver(REVIEWER_INSTANCE, spec.end, DAY);
      expect(card.utilisation).toMatchObject({
        method: 'measured-mig-instance',
      });
      expect(card.utilisation!.value).toBeCloseTo(utilisation, 6);
      expect(card.utilisation!.coverage).toBeCloseTo(0.5, 2);
      expect(
        Math.max(...card.series.utilisation.map(p => p.value)),
      ).toBeLessThanOrEqual(0.36 + 1e-9);
      // Memory: the measured instance's 7000 MiB, not the GPU's 61000 MiB.
      expect(card.memory!.usedBytes.value).toBeCloseTo(7000 * 1024 * 1024, -3);
      expect(
        Math.max(...card.series.memoryUsedBytes.map(p => p.value)),
      ).toBeCloseTo(7000 * 1024 * 1024, -3);
      // Power: each replica's A100 (an instance's series on node 3, the parent's copy on node 4) x the share each
      // replica is charged for (the reservation's 2/7 over 2 replicas), as the cost below.
      expect(card.powerWatts!.value).toBeCloseTo(2 * A100_WATTS * SHARE_1G, 3);

      const cost = await usage.serviceCost(ids.reviewer, '24h');
      expect(cost.metrics).toMatchObject({ state: 'partial' });
      // The allocation of both replicas; its usage part the measured replica's only.
      const allocation = 2 * A100_GPU_HOUR * SHARE_1G * 24;
      expect(cents(cost.allocationMicros)).toBe(dollarsToCents(allocation));
      expect(cents(cost.usageMicros)).toBe(
        dollarsToCents(
          allocation * card.utilisation!.value * card.utilisation!.coverage!,
        ),
      );
      expect(cents(cost.usageMicros)).toBeLessThan(
        dollarsToCents(allocation * utilisation * 0.51),
      );
    });

    it("never bills the parent GPU's busy time in the daily snapshots or month to date", async () => {
      await storeDailySnapshots({ usage: usageService(), snapshots, now });
      const yesterday = now.startOf('day').minus({ days: 1 });
      const day = yesterday.toISODate()!;
      const stored = await snapshots.list({
        serviceIds: [ids.translator, ids.classifier],
        fromDay: day,
        toDay: day,
      });
      const translator = stored.find(s => s.serviceId === ids.translator)!;
      const classifier = stored.find(s => s.serviceId === ids.classifier)!;
      // translator: the allocation of the day, without a usage split (not the A100's 85%).
      expect(cents(translator.allocationMicros)).toBe(
        dollarsToCents((A100_GPU_HOUR / 7) * 24),
      );
      expect(translator.usageMicros).toBeUndefined();
      expect(translator.utilisation).toBeUndefined();
      // classifier: its instance's day.
      const dayEnd = now.startOf('day').toSeconds();
      const dayUtilisation = meanOver(CLASSIFIER_INSTANCE, dayEnd, DAY);
      expect(classifier.utilisation).toBeCloseTo(dayUtilisation, 6);
      expect(cents(classifier.usageMicros)).toBe(
        dollarsToCents(((A100_GPU_HOUR * 2) / 7) * 24 * dayUtilisation),
      );

      const cost = await usageService().serviceCost(ids.translator, '30d');
      expect(cost.usageMicros).toBeUndefined();
      expect(cost.monthToDate.usageMicros ?? 0).toBe(0);
      expect(
        cost.daily.every(
          d => d.usageMicros === undefined || d.usageMicros === 0,
        ),
      ).toBe(true);
    });
  },
);
