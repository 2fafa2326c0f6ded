import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  SimulatedPod,
  simulatedLoad,
  simulatedMetricsText,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  historyEnd,
  podName,
  PrometheusWithHistory,
  sampleTimes,
  startPrometheusWithHistory,
} from '../testUtils/prometheus';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

/*
 * The `./scripts/start --cluster` demo's simulated series (gpu-node's simulatedMetricsText, which
 * scripts/simulated-metrics.mjs serves) read back through the UsageService from a real Prometheus: fails when the
 * generated series stop matching the backend's queries (names, labels, pod names, MIG and shared-GPU shapes).
 */

jest.setTimeout(120_000);

const DAY = 86400;
const STEP = 60;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform: Platform = parsePlatform(demoPlatformConfig);

/** The services, as the exporter finds their pods in the cluster (kwok nodes of the demo's pools). */
const PODS: Array<Omit<SimulatedPod, 'startedAt'>> = [
  {
    namespace: 'ml-serving',
    pod: podName('writer'),
    service: 'writer',
    container: 'vllm',
    node: 'kwok-l4-ondemand-0',
    tier: 'dedicated',
    resources: { 'nvidia.com/gpu': 1 },
    vllm: true,
  },
  {
    namespace: 'ml-serving',
    pod: podName('chat'),
    service: 'chat',
    container: 'vllm',
    node: 'kwok-l4-ondemand-1',
    tier: 'dedicated',
    resources: { 'nvidia.com/gpu': 1 },
    vllm: true,
  },
  {
    namespace: 'ml-serving',
    pod: podName('embedder'),
    service: 'embedder',
    container: 'vllm',
    node: 'kwok-a100-mig-0',
    tier: 'mig',
    resources: { 'nvidia.com/mig-1g.10gb': 1 },
    vllm: true,
  },
  {
    namespace: 'search',
    pod: podName('notebook'),
    service: 'notebook',
    container: 'vllm',
    node: 'kwok-t4-timeslice-0',
    tier: 'time-sliced',
    resources: { 'nvidia.com/gpu.shared': 1 },
    vllm: true,
  },
];

/** The exporter's text at each sample time, as OpenMetrics with timestamps, grouped by series for promtool. */
function* simulatedHistory(
  pods: SimulatedPod[],
  times: number[],
): Generator<string> {
  const series = new Map<string, string[]>();
  for (const t of times) {
    for (const line of simulatedMetricsText(pods, {}, t).split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const at = line.lastIndexOf(' ');
      const key = line.slice(0, at);
      const samples = series.get(key) ?? [];
      samples.push(`${key} ${line.slice(at + 1)} ${t}`);
      series.set(key, samples);
    }
  }
  for (const samples of series.values()) yield* samples;
  yield '# EOF';
}

describe('the demo simulated metrics read through the UsageService from a real Prometheus', () => {
  let prometheus: PrometheusWithHistory;
  let ids: Record<string, string>;
  let usage: UsageService;

  beforeAll(async () => {
    const end = historyEnd(3600);
    const spec = { end, days: 1, stepSeconds: STEP, services: [] };
    const pods = PODS.map(p => ({ ...p, startedAt: end - 2 * DAY }));
    let knex: Knex;
    [prometheus, knex] = await Promise.all([
      startPrometheusWithHistory(spec, {
        lines: simulatedHistory(pods, sampleTimes(spec)),
      }),
      databases.init('SQLITE_3'),
    ]);
    const store = await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform,
    });
    const heldAt = new Date((end - 2 * DAY) * 1000).toISOString();
    const common = { team: 'ml-platform', environment: 'production', heldAt };
    ids = await seedUsageServices({
      store,
      knex,
      platform,
      services: [
        {
          ...common,
          name: 'writer',
          namespace: 'ml-serving',
          tier: 'dedicated',
          pool: 'l4-ondemand',
          gpuEquivalents: 1,
        },
        {
          ...common,
          name: 'chat',
          namespace: 'ml-serving',
          tier: 'dedicated',
          pool: 'l4-ondemand',
          gpuEquivalents: 1,
        },
        {
          ...common,
          name: 'embedder',
          namespace: 'ml-serving',
          tier: 'mig',
          pool: 'a100-mig',
          migProfile: '1g.10gb',
          gpuEquivalents: 1,
        },
        {
          ...common,
          team: 'search',
          name: 'notebook',
          namespace: 'search',
          tier: 'time-sliced',
          pool: 't4-timeslice',
          gpuEquivalents: 1,
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
          gpu: { prometheus: { baseUrl: prometheus.url, simulated: true } },
        }),
      ),
      now: () => now,
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
  });

  it('gives a busy dedicated service its utilisation and tokens, labelled simulated', async () => {
    const load = simulatedLoad('ml-serving', 'writer');
    expect(load.kind).toBe('busy');
    const answer = await usage.serviceUsage(ids.writer, '24h');
    expect(answer.metrics).toEqual({ state: 'available', simulated: true });
    // The hourly wave averages to its mean over a day.
    expect(answer.utilisation!.value * 100).toBeCloseTo(load.utilisation, 0);
    expect(answer.tokens!.generatedPerSecond).toBeCloseTo(
      load.tokensPerSecond,
      1,
    );
    expect(answer.tokens!.generated).toBeCloseTo(
      load.tokensPerSecond * DAY,
      -3,
    );
  });

  it('reads the MIG instance engine activity and the time-sliced GPU', async () => {
    const mig = await usage.serviceUsage(ids.embedder, '24h');
    expect(mig.metrics.state).toBe('available');
    expect(mig.engineActive!.value * 100).toBeCloseTo(
      simulatedLoad('ml-serving', 'embedder').utilisation,
      0,
    );
    const shared = await usage.serviceUsage(ids.notebook, '24h');
    expect(shared.metrics).toMatchObject({ simulated: true });
    expect(shared.utilisation).toBeDefined();
    expect(shared.tokens!.generated).toBeGreaterThan(0);
  });

  it('puts the mostly idle service on the waste side of the overview, labelled simulated', async () => {
    expect(simulatedLoad('ml-serving', 'chat').kind).toBe('idle');
    const overview = await usage.overview('24h');
    expect(overview.metrics).toMatchObject({ simulated: true });
    expect(overview.metrics.state).not.toBe('unavailable');
    const byName = new Map(overview.services.map(s => [s.name, s]));
    const chat = byName.get('chat')!;
    const writer = byName.get('writer')!;
    expect(chat.utilisation!.value).toBeLessThan(0.1);
    expect(chat.idleMicros!).toBeGreaterThan(writer.idleMicros!);
    expect(chat.idleMicros! / chat.allocationMicros).toBeGreaterThan(0.85);
  });
});
