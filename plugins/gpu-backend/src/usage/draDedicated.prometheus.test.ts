import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
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
const MIB = 1024 * 1024;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });

/**
 * The demo platform and a pool of whole L4s allocated through DRA, priced apart from the device-plugin L4s so that a
 * cost taken from the wrong pool shows.
 */
const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [
    ...demoPlatformConfig.pools,
    {
      name: 'l4-dra',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 2,
      pricePerNodeHour: '0.98',
      nodeLabels: { 'gpu.example.com/pool': 'l4-dra' },
      nodeTaints: [
        { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      ],
      allocation: 'dra',
    },
  ],
});
const prometheusVersions = prometheusVersionsUnderTest();

const DRA_GPU_HOUR = 0.98;
const DEVICE_PLUGIN_GPU_HOUR = 0.8048;
/** `summarizer`: two replicas, each with one whole L4 from a ResourceClaim (DRA). */
const SUMMARIZER: Wave = { mean: 62, amplitude: 8 };
const SUMMARIZER_MIB = 18000;
const SUMMARIZER_WATTS = 55;
/** `chatbot`: one replica on the device plugin's `nvidia.com/gpu`, on the same Prometheus. */
const CHATBOT: Wave = { mean: 30, amplitude: 10 };
const CHATBOT_MIB = 12000;
const CHATBOT_WATTS = 40;
const L4_MIB = 23034;

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const mean = (values: number[]) =>
  values.reduce((a, b) => a + b, 0) / values.length;
const cents = (micros: number | undefined) =>
  micros === undefined ? undefined : Math.round(micros / 1e4);
const dollarsToCents = (usd: number) => Math.round(usd * 100);

/**
 * What dcgm-exporter 4.8.4 writes for whole GPUs allocated through DRA (`KUBERNETES_ENABLE_DRA`,
 * `DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID`; `internal/pkg/transformation/kubernetes.go` `Process`, DRA branch): per
 * pod holding the device, a copy of the GPU's series (looked up by its `uuid` attribute in the driver's ResourceSlice,
 * `dra.go`) with `pod`, `namespace`, `container`, the `dra_*` labels and `pod_uid` (NVIDIA/dcgm-exporter#718, fixed in
 * 4.8.4), and the node under `hostname` (lower case since NVIDIA/dcgm-exporter#655). kube-state-metrics reports no GPU
 * request for those pods: a claim is not a container resource. Beside them, a device-plugin service on a node whose
 * exporter is older (`Hostname`). The backend keeps its default host label (`Hostname`): a whole GPU's figures are
 * found by pod and namespace and need no host.
 */
function history(end: number): HistorySpec {
  return {
    end,
    days: 2,
    stepSeconds: STEP,
    services: [
      {
        name: 'summarizer',
        namespace: 'ml-serving',
        tier: 'dedicated',
        allocation: 'dra',
        podUid: true,
        hostnameLabel: 'hostname',
        pods: [
          { pod: podName('summarizer', 0), hostname: 'l4-dra-1', gpu: '0' },
          { pod: podName('summarizer', 1), hostname: 'l4-dra-2', gpu: '0' },
        ],
        utilisation: SUMMARIZER,
        memoryMiB: { mean: SUMMARIZER_MIB },
        totalMiB: L4_MIB,
        power: { mean: SUMMARIZER_WATTS },
        tokensPerSecond: 80,
      },
      {
        name: 'chatbot',
        namespace: 'ml-serving',
        tier: 'dedicated',
        pods: [{ pod: podName('chatbot'), hostname: 'l4-node-1', gpu: '0' }],
        utilisation: CHATBOT,
        memoryMiB: { mean: CHATBOT_MIB },
        totalMiB: L4_MIB,
        power: { mean: CHATBOT_WATTS },
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
  'Whole GPUs allocated through DRA beside the device plugin, against a real Prometheus ($version)',
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

    /** Mean of a wave / 100 over the samples of (to - seconds, to], as a window reads them. */
    function meanOver(wave: Wave, to: number, seconds: number) {
      return mean(
        sampleTimes(spec)
          .filter(t => t > to - seconds && t <= to)
          .map(t => round6(waveAt(wave, t)) / 100),
      );
    }

    async function query(promql: string) {
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
    }

    beforeAll(async () => {
      const end = historyEnd(STEP);
      spec = history(end);
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
            name: 'summarizer',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-dra',
            gpuEquivalents: 2,
            replicas: 2,
            heldAt,
          },
          {
            name: 'chatbot',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: 1,
            heldAt,
          },
        ],
      });
    });

    afterAll(async () => {
      await prometheus?.stop();
    });

    it('holds the DRA pods on their GPUs with the labels dcgm-exporter 4.8.4 writes, and no GPU request in kube-state-metrics', async () => {
      const series = await query(
        `DCGM_FI_DEV_GPU_UTIL{namespace="ml-serving",pod=~"summarizer-.*"}`,
      );
      expect(series).toHaveLength(2);
      for (const s of series) {
        expect(s.metric).toMatchObject({
          container: 'vllm',
          dra_driver_name: 'gpu.nvidia.com',
          dra_claim_namespace: 'ml-serving',
          dra_device_name: 'gpu-0',
          pod_uid: `uid-${s.metric.pod}`,
        });
        expect(s.metric.dra_pool_name).toBe(s.metric.hostname);
        expect(s.metric.Hostname).toBeUndefined();
        expect(s.metric.GPU_I_ID).toBeUndefined();
      }
      expect(
        await query(
          `kube_pod_container_resource_requests{pod=~"summarizer-.*"}`,
        ),
      ).toEqual([]);
      expect(
        await query(`kube_pod_container_resource_requests{pod=~"chatbot-.*"}`),
      ).toHaveLength(1);
    });

    it("measures a DRA service's GPUs from its pods' series, as a device-plugin service's", async () => {
      const usage = usageService();
      const card = await usage.serviceUsage(ids.summarizer, '24h');
      expect(card.metrics).toEqual({ state: 'available' });
      const utilisation = meanOver(SUMMARIZER, spec.end, DAY);
      expect(card.utilisation).toMatchObject({
        method: 'measured',
        confidence: 'high',
        note: "DCGM GPU utilisation of the service's 2 GPUs",
      });
      expect(card.utilisation!.value).toBeCloseTo(utilisation, 6);
      expect(card.utilisation!.coverage ?? 1).toBeCloseTo(1, 2);
      // Both replicas' GPUs: memory and power add up, the device memory is two L4s'.
      expect(card.memory!.usedBytes.value).toBeCloseTo(
        2 * SUMMARIZER_MIB * MIB,
        -3,
      );
      expect(card.powerWatts).toMatchObject({ method: 'measured' });
      expect(card.powerWatts!.value).toBeCloseTo(2 * SUMMARIZER_WATTS, 3);
      expect(card.series.utilisation.length).toBeGreaterThan(0);
      expect(
        Math.max(...card.series.utilisation.map(p => p.value)),
      ).toBeLessThanOrEqual(0.7 + 1e-9);
      expect(card.tokens?.generated).toBeCloseTo(2 * 80 * DAY, -3);

      const cost = await usage.serviceCost(ids.summarizer, '24h');
      expect(cost.metrics).toEqual({ state: 'available' });
      // Two GPUs of the DRA pool for 24 hours, split into usage and idle by what was measured.
      const allocation = 2 * DRA_GPU_HOUR * 24;
      expect(cents(cost.allocationMicros)).toBe(dollarsToCents(allocation));
      expect(cost.utilisation!.value).toBeCloseTo(utilisation, 6);
      expect(cents(cost.usageMicros)).toBe(
        dollarsToCents(allocation * utilisation),
      );
      expect(cost.allocatedHours).toBeCloseTo(24, 6);
    });

    it('keeps the device-plugin service beside it to its own GPU', async () => {
      const usage = usageService();
      const card = await usage.serviceUsage(ids.chatbot, '24h');
      expect(card.metrics).toEqual({ state: 'available' });
      const utilisation = meanOver(CHATBOT, spec.end, DAY);
      expect(card.utilisation!.value).toBeCloseTo(utilisation, 6);
      expect(card.utilisation!.note).toBe(
        "DCGM GPU utilisation of the service's 1 GPU",
      );
      expect(card.memory!.usedBytes.value).toBeCloseTo(CHATBOT_MIB * MIB, -3);
      expect(card.powerWatts!.value).toBeCloseTo(CHATBOT_WATTS, 3);

      const cost = await usage.serviceCost(ids.chatbot, '24h');
      const allocation = DEVICE_PLUGIN_GPU_HOUR * 24;
      expect(cents(cost.allocationMicros)).toBe(dollarsToCents(allocation));
      expect(cents(cost.usageMicros)).toBe(
        dollarsToCents(allocation * utilisation),
      );
    });

    it("stores both services' days from their own GPUs", async () => {
      await storeDailySnapshots({ usage: usageService(), snapshots, now });
      const day = now.startOf('day').minus({ days: 1 }).toISODate()!;
      const stored = await snapshots.list({
        serviceIds: [ids.summarizer, ids.chatbot],
        fromDay: day,
        toDay: day,
      });
      const dayEnd = now.startOf('day').toSeconds();
      const summarizer = stored.find(s => s.serviceId === ids.summarizer)!;
      const chatbot = stored.find(s => s.serviceId === ids.chatbot)!;
      const summarizerDay = meanOver(SUMMARIZER, dayEnd, DAY);
      const chatbotDay = meanOver(CHATBOT, dayEnd, DAY);
      expect(summarizer.utilisation).toBeCloseTo(summarizerDay, 6);
      expect(cents(summarizer.allocationMicros)).toBe(
        dollarsToCents(2 * DRA_GPU_HOUR * 24),
      );
      expect(cents(summarizer.usageMicros)).toBe(
        dollarsToCents(2 * DRA_GPU_HOUR * 24 * summarizerDay),
      );
      expect(chatbot.utilisation).toBeCloseTo(chatbotDay, 6);
      expect(cents(chatbot.usageMicros)).toBe(
        dollarsToCents(DEVICE_PLUGIN_GPU_HOUR * 24 * chatbotDay),
      );
    });
  },
);
