import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  Platform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import { createQuoteService } from '../services/QuoteService';
import {
  HistorySpec,
  historyEnd,
  podName,
  PrometheusWithHistory,
  prometheusVersionsUnderTest,
  startPrometheusWithHistory,
  TOKENS_PER_REQUEST,
} from '../testUtils/prometheus';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

jest.setTimeout(120_000);

const DAY = 86400;
const STEP = 60;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform: Platform = parsePlatform(demoPlatformConfig);

// --- the generated traffic, and what it must give, in plain arithmetic ---

/** `writer`: two dedicated L4 replicas, each generating 1,500 tokens/s from 3,500 prompt tokens/s. */
const OUTPUT_PER_POD = 1500;
const PROMPT_PER_POD = 3500;
const WRITER_PODS = 2;
/** `writer`'s requests spend 0.05 s prefilling and 0.45 s decoding (vLLM's phase histograms): a tenth on input. */
const WRITER_PREFILL_SECONDS = 0.05;
const WRITER_DECODE_SECONDS = 0.45;
/** The managed API compared with: 0.20 USD per 1M input tokens, 0.60 per 1M output tokens. */
const MANAGED_API = {
  name: 'Hosted Llama',
  inputPerMillionMicros: 200_000,
  outputPerMillionMicros: 600_000,
};
/** Per GPU-hour: the pool's node-hour price / GPUs per node (one L4 per node). */
const L4_GPU_HOUR_MICROS = 804_800;
const SPOT_L4_GPU_HOUR_MICROS = 370_000;
/** `bursty`: one L4 replica generating 900 tokens/s (from 900 prompt tokens/s) for 2 hours, idle otherwise. */
const BURSTY_OUTPUT = 900;
const BURSTY_BUSY_FROM = 6 * 3600;
const BURSTY_BUSY_SECONDS = 2 * 3600;

function writerHistory(end: number): HistorySpec {
  return {
    end,
    days: 2,
    stepSeconds: STEP,
    kubeState: false,
    services: [
      {
        name: 'writer',
        namespace: 'ml-serving',
        tier: 'dedicated',
        pods: [
          { pod: podName('writer', 0), hostname: 'l4-node-1', gpu: '0' },
          {
            pod: podName('writer', 1),
            hostname: 'l4-node-2',
            gpu: '0',
            // vLLM restarted twice in the last day: its counters start again from 0.
            restarts: [end - 10 * 3600, end - 3 * 3600],
          },
        ],
        utilisation: { mean: 70 },
        memoryMiB: { mean: 20000 },
        totalMiB: 23034,
        tokensPerSecond: OUTPUT_PER_POD,
        promptTokensPerSecond: PROMPT_PER_POD,
        phaseSecondsPerRequest: {
          prefill: WRITER_PREFILL_SECONDS,
          decode: WRITER_DECODE_SECONDS,
        },
      },
      {
        name: 'bursty',
        namespace: 'ml-serving',
        tier: 'dedicated',
        pods: [{ pod: podName('bursty'), hostname: 'l4-node-3', gpu: '0' }],
        utilisation: { mean: 10 },
        memoryMiB: { mean: 20000 },
        totalMiB: 23034,
        tokensPerSecond: BURSTY_OUTPUT,
        promptTokensPerSecond: BURSTY_OUTPUT,
        // Busy only from 6 to 4 hours before the end: 2 of the day's 24 hours, under a tenth of its 5-minute steps.
        idle: [
          { after: end - 2 * DAY, until: end - BURSTY_BUSY_FROM },
          { after: end - BURSTY_BUSY_FROM + BURSTY_BUSY_SECONDS, until: end },
        ],
      },
    ],
  };
}

const prometheusVersions = prometheusVersionsUnderTest();

describe.each(prometheusVersions.available)(
  'measured throughput and split token costs against a real Prometheus ($version)',
  binaries => {
    let prometheus: PrometheusWithHistory;
    let knex: Knex;
    let store: DatabaseGpuStore;
    let ids: Record<string, string>;
    let end: number;
    let usage: UsageService;

    beforeAll(async () => {
      end = historyEnd(3600);
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(writerHistory(end), { binaries }),
        databases.init('SQLITE_3'),
      ]);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const heldAt = new Date((end - 10 * DAY) * 1000).toISOString();
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          {
            name: 'writer',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: WRITER_PODS,
            replicas: WRITER_PODS,
            heldAt,
          },
          {
            name: 'bursty',
            team: 'ml-platform',
            namespace: 'ml-serving',
            environment: 'production',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: 1,
            heldAt,
          },
          // The same model on the same slice shape (a whole L4) of another pool, without any metrics yet.
          {
            name: 'quiet',
            team: 'search',
            namespace: 'search',
            environment: 'dev',
            tier: 'dedicated',
            pool: 'spot-l4',
            gpuEquivalents: 1,
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
        managedApi: MANAGED_API,
        now: () => now,
      });
    });

    afterAll(async () => {
      await prometheus?.stop();
    });

    it('splits the window cost between input and output tokens by the measured prefill and decode time', async () => {
      const cost = await usage.serviceCost(ids.writer, '24h');
      // Two L4s for 24 hours.
      const allocation = L4_GPU_HOUR_MICROS * WRITER_PODS * 24;
      expect(cost.allocationMicros).toBe(allocation);
      const generated = OUTPUT_PER_POD * WRITER_PODS * DAY; // 259.2 M
      const prompt = PROMPT_PER_POD * WRITER_PODS * DAY; // 604.8 M
      const requests =
        (OUTPUT_PER_POD / TOKENS_PER_REQUEST) * WRITER_PODS * DAY; // 864,000
      const tokenCosts = cost.tokenCosts!;
      expect(tokenCosts.basis).toBe('measured');
      // Counters across the two restarts are counted in full (reset-safe increase).
      expect(tokenCosts.generatedTokens).toBeCloseTo(generated, 0);
      expect(tokenCosts.promptTokens).toBeCloseTo(prompt, 0);
      expect(tokenCosts.requests).toBeCloseTo(requests, 3);
      // 0.05 s prefill and 0.45 s decode per request: 43,200 and 388,800 seconds over the day's 864,000 requests.
      expect(tokenCosts.inputOutputSplit).toEqual({
        basis: 'measured',
        prefillSeconds: expect.any(Number),
        decodeSeconds: expect.any(Number),
      });
      const split = tokenCosts.inputOutputSplit as {
        prefillSeconds: number;
        decodeSeconds: number;
      };
      expect(
        split.prefillSeconds / (requests * WRITER_PREFILL_SECONDS),
      ).toBeCloseTo(1, 3);
      expect(
        split.decodeSeconds / (requests * WRITER_DECODE_SECONDS),
      ).toBeCloseTo(1, 3);
      // A tenth of 38,630,400 on 604.8 M prompt tokens: 6,387.3 per million; the rest on 259.2 M output tokens:
      // 134,133.3 per million (not the assumed 1/10 weight's 12,084 and 120,841).
      const inputShare =
        split.prefillSeconds / (split.prefillSeconds + split.decodeSeconds);
      expect(inputShare).toBeCloseTo(0.1, 4);
      expect(
        tokenCosts.costPerMillionInputTokensMicros! /
          ((allocation * 0.1 * 1e6) / prompt),
      ).toBeCloseTo(1, 3);
      expect(
        tokenCosts.costPerMillionOutputTokensMicros! /
          ((allocation * 0.9 * 1e6) / generated),
      ).toBeCloseTo(1, 3);
      // The whole cost per 1,000 output tokens: 38,630,400 / 259,200 = 149.04.
      expect(tokenCosts.costPerThousandOutputTokensMicros).toBe(149);
      expect(cost.costPerThousandTokensMicros).toBe(149);
      // Per request: 38,630,400 / 864,000 = 44.71.
      expect(tokenCosts.costPerRequestMicros).toBe(45);
    });

    it('compares the service with the managed API at its own request shape and daily cost', async () => {
      const cost = await usage.serviceCost(ids.writer, '24h');
      const comparison = cost.managedApi!;
      // Per request: 3,500 / 1,500 x TOKENS_PER_REQUEST prompt tokens and TOKENS_PER_REQUEST output tokens.
      const inputTokens =
        (PROMPT_PER_POD / OUTPUT_PER_POD) * TOKENS_PER_REQUEST;
      expect(comparison.request.basis).toBe('measured');
      expect(comparison.request.inputTokens).toBeCloseTo(inputTokens, 3);
      expect(comparison.request.outputTokens).toBeCloseTo(
        TOKENS_PER_REQUEST,
        3,
      );
      // Two L4s a day.
      expect(comparison.selfHostedDailyMicros).toBe(
        L4_GPU_HOUR_MICROS * WRITER_PODS * 24,
      );
      const perRequest =
        (inputTokens * MANAGED_API.inputPerMillionMicros +
          TOKENS_PER_REQUEST * MANAGED_API.outputPerMillionMicros) /
        1e6;
      expect(
        comparison.crossoverRequestsPerDay! /
          ((L4_GPU_HOUR_MICROS * WRITER_PODS * 24) / perRequest),
      ).toBeCloseTo(1, 3);
      expect(comparison.selfHostedInputPerMillionMicros).toBe(
        cost.tokenCosts!.costPerMillionInputTokensMicros,
      );
      expect(comparison.selfHostedOutputPerMillionMicros).toBe(
        cost.tokenCosts!.costPerMillionOutputTokensMicros,
      );
    });

    it("replaces the estimate on the service's card with its measured sustained tokens/s", async () => {
      const cost = await usage.serviceCost(ids.writer, '24h');
      expect(cost.throughput).toEqual({
        basis: 'measured',
        tokensPerSecondPerReplica: expect.any(Number),
        replicas: WRITER_PODS,
        capacityTokensPerSecond: expect.any(Number),
        measuredBy: {
          serviceId: ids.writer,
          service: 'writer',
          windowStart: cost.window.start,
          windowEnd: cost.window.end,
        },
      });
      expect(cost.throughput!.tokensPerSecondPerReplica).toBeCloseTo(
        OUTPUT_PER_POD,
        6,
      );
      expect(cost.throughput!.capacityTokensPerSecond).toBeCloseTo(
        OUTPUT_PER_POD * WRITER_PODS,
        6,
      );
    });

    it('measures what a mostly idle service sustains when busy, not its average', async () => {
      const cost = await usage.serviceCost(ids.bursty, '24h');
      // 900 tokens/s for 2 of 24 hours: the average rate is 75 tokens/s, and 22 of 24 hours are idle.
      const generated = BURSTY_OUTPUT * BURSTY_BUSY_SECONDS; // 6.48 M
      expect(cost.tokenCosts!.generatedTokens).toBeCloseTo(generated, 0);
      expect(cost.tokenCosts!.promptTokens).toBeCloseTo(generated, 0);
      expect(cost.throughput!.basis).toBe('measured');
      expect(cost.throughput!.measuredBy!.serviceId).toBe(ids.bursty);
      expect(cost.throughput!.tokensPerSecondPerReplica).toBeCloseTo(
        BURSTY_OUTPUT,
        6,
      );
      // Its pods report no prefill or decode time: the split is the labelled assumption.
      expect(cost.tokenCosts!.inputOutputSplit).toEqual({
        basis: 'assumed',
        inputTokenWeight: 0.1,
      });
      // One L4 for 24 hours over 6.48 M + 0.648 M weighted tokens: 19,315,200 x 10^6 / 7,128,000 = 2,709,764.3.
      expect(cost.tokenCosts!.costPerMillionOutputTokensMicros).toBe(
        Math.round(
          (L4_GPU_HOUR_MICROS * 24 * 1e6) / (generated + generated / 10),
        ),
      );
    });

    it('gives a service of the same model and slice shape the measured capacity, and estimated token prices at it', async () => {
      const cost = await usage.serviceCost(ids.quiet, '24h');
      expect(cost.throughput).toMatchObject({
        basis: 'measured',
        replicas: 1,
        measuredBy: { serviceId: ids.writer, service: 'writer' },
      });
      expect(cost.throughput!.tokensPerSecondPerReplica).toBeCloseTo(
        OUTPUT_PER_POD,
        6,
      );
      // No tokens of its own: an hour of a spot L4 at 1,500 tokens/s, requests of 700 + 300 tokens.
      const perOutputToken = SPOT_L4_GPU_HOUR_MICROS / (OUTPUT_PER_POD * 3600);
      expect(cost.tokenCosts).toEqual({
        basis: 'estimated',
        capacityTokensPerSecond: expect.any(Number),
        // 370,000 x 300 / 5.4 M = 20.56
        costPerRequestMicros: Math.round(perOutputToken * 300),
        // the request's cost x 300/370 over its 300 output tokens, per million: 55,555.6
        costPerMillionOutputTokensMicros: Math.round(
          ((perOutputToken * 300 * 300) / 370 / 300) * 1e6,
        ),
        costPerMillionInputTokensMicros: Math.round(
          ((perOutputToken * 300 * 300) / 370 / 300) * 1e5,
        ),
        // 370,000 x 1,000 / 5.4 M = 68.52
        costPerThousandOutputTokensMicros: 69,
        inputOutputSplit: { basis: 'assumed', inputTokenWeight: 0.1 },
      });
      expect(cost.tokenCosts!.costPerRequestMicros).toBe(21);
    });

    it('quotes the same model and slice shape at the measured capacity, saying where it came from', async () => {
      const quotes = createQuoteService({
        platform,
        store,
        capacities: usage.capacities,
        autoscaledReplicas: 'maximum',
      });
      const request: ServiceRequest = {
        name: 'writer-two',
        team: 'ml-platform',
        model: 'llama-3.1-8b',
        runtime: 'vllm',
        maxModelLen: 8192,
        concurrency: 16,
        replicas: 1,
        environment: 'production',
        tier: 'dedicated',
        pool: 'l4-ondemand',
        expectedTokensPerSecond: 600,
      };
      const quote = await quotes.quote(request);
      const option = quote.options.find(o => o.slice.gpusPerReplica === 1)!;
      expect(option.throughput).toMatchObject({
        basis: 'stated',
        capacityBasis: 'measured',
        measuredBy: { serviceId: ids.writer, service: 'writer' },
      });
      expect(option.throughput.capacityTokensPerSecond).toBeCloseTo(1500, 6);
      expect(option.throughput.utilisation).toBeCloseTo(0.4, 9);
      expect(option.throughput.costFactor).toBeCloseTo(2.5, 9);
      // The same slice in another dtype (fp8) is another shape: it keeps the estimate.
      const fp8 = await quotes.quote({ ...request, dtype: 'fp8' });
      expect(fp8.options.length).toBeGreaterThan(0);
      for (const o of fp8.options) {
        expect(o.throughput.capacityBasis).toBe('estimated');
        expect(o.throughput.measuredBy).toBeUndefined();
      }
    });
  },
);
