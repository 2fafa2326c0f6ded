import {
  mockServices,
  registerMswTestHooks,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

const server = setupServer();
registerMswTestHooks(server);

const PROMETHEUS = 'http://prometheus.test:9090';
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const now = DateTime.fromISO('2026-11-20T12:00:00Z', { zone: 'utc' });
const chatPod = 'chat-6f7d8c9b5-p0x7k';

/** A vector answer with one series of the chat pod for DCGM queries and one for vLLM queries. */
function answer(query: string) {
  const vllm = query.includes('vllm:');
  const metric = vllm
    ? { namespace: 'ml-serving', pod: chatPod, model_name: 'chat' }
    : {
        namespace: 'ml-serving',
        pod: chatPod,
        Hostname: 'l4-node-1',
        gpu: '0',
      };
  return HttpResponse.json({
    status: 'success',
    data: {
      resultType: 'vector',
      result: [{ metric, value: [now.toSeconds(), vllm ? '1000' : '40'] }],
    },
  });
}

/** The step samples' range query (`stepSamples.ts`) answered with no series: the window's figures are used. */
const noStepSamples = http.post(`${PROMETHEUS}/api/v1/query_range`, () =>
  HttpResponse.json({
    status: 'success',
    data: { resultType: 'matrix', result: [] },
  }),
);

describe('UsageService when Prometheus misbehaves', () => {
  let knex: Knex;
  let ids: Record<string, string>;

  beforeAll(async () => {
    knex = await databases.init('SQLITE_3');
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
          name: 'chat',
          team: 'ml-platform',
          namespace: 'ml-serving',
          environment: 'production',
          tier: 'dedicated',
          pool: 'l4-ondemand',
          gpuEquivalents: 1,
          heldAt: '2026-11-01T00:00:00.000Z',
        },
      ],
    });
  });

  function usage(timeout = 5000) {
    return new UsageService({
      platform,
      reader: new AllocationReader(knex),
      snapshots: new CostSnapshotStore(knex),
      quotas: { getQuota: async () => undefined, listQuotas: async () => [] },
      prometheus: readPrometheusConfig(
        new ConfigReader({
          gpu: { prometheus: { baseUrl: PROMETHEUS, timeout } },
        }),
      ),
      now: () => now,
    });
  }

  it('says usage is unavailable when Prometheus is slow, and still gives the allocation cost', async () => {
    server.use(
      http.post(`${PROMETHEUS}/api/v1/query`, async () => {
        await delay(1000);
        return HttpResponse.json({
          status: 'success',
          data: { resultType: 'vector', result: [] },
        });
      }),
    );
    const cost = await usage(100).serviceCost(ids.chat, '24h');
    expect(cost.metrics).toEqual({
      state: 'unavailable',
      reason: 'Prometheus did not answer within 100 ms',
    });
    expect(cost.allocationMicros).toBe(Math.round(0.8048 * 24 * 1e6));
    expect(cost.usageMicros).toBeUndefined();
    expect(cost.monthToDate.allocationMicros).toBe(
      Math.round(0.8048 * (19 * 24 + 12) * 1e6),
    );
  });

  it('uses what answered when only the vLLM queries fail, naming what is missing', async () => {
    server.use(
      http.post(`${PROMETHEUS}/api/v1/query`, async ({ request }) => {
        const query = new URLSearchParams(await request.text()).get('query')!;
        return query.includes('vllm:')
          ? HttpResponse.json(
              {
                status: 'error',
                errorType: 'execution',
                error: 'query timed out',
              },
              { status: 503 },
            )
          : answer(query);
      }),
      noStepSamples,
    );
    const cost = await usage().serviceCost(ids.chat, '24h');
    expect(cost.metrics.state).toBe('partial');
    expect(cost.metrics.reason).toBe(
      'Prometheus query failed (execution: query timed out)',
    );
    expect(cost.metrics.missing).toEqual([
      'vllm:e2e_request_latency_seconds',
      'vllm:generation_tokens_total',
      'vllm:kv_cache_usage_perc',
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:prompt_tokens_total',
    ]);
    expect(cost.utilisation).toMatchObject({ value: 0.4, method: 'measured' });
    expect(cost.usageMicros).toBe(Math.round(0.8048 * 24 * 0.4 * 1e6));
    expect(cost.generatedTokens).toBeUndefined();
    expect(cost.costPerThousandTokensMicros).toBeUndefined();
  });

  it('gives tokens and cost per 1,000 tokens when everything answers', async () => {
    server.use(
      http.post(`${PROMETHEUS}/api/v1/query`, async ({ request }) =>
        answer(new URLSearchParams(await request.text()).get('query')!),
      ),
      noStepSamples,
    );
    const cost = await usage().serviceCost(ids.chat, '24h');
    expect(cost.metrics).toEqual({ state: 'available' });
    expect(cost.generatedTokens).toBe(1000);
    expect(cost.costPerThousandTokensMicros).toBe(
      Math.round(0.8048 * 24 * 1e6),
    );
  });
});
