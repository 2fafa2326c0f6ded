import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { ServiceRecord } from '../database';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { ServiceAllocation } from './AllocationReader';
import { CAPACITY_TTL_MS, MeasuredCapacities } from './measuredCapacities';

const platform = parsePlatform(demoPlatformConfig);

function allocation(
  name: string,
  overrides: Partial<ServiceRecord> = {},
): ServiceAllocation {
  const service: ServiceRecord = {
    id: `id-${name}`,
    name,
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    tier: 'dedicated',
    pool: 'l4-ondemand',
    status: 'ready',
    reason: 'Available',
    generation: 1,
    statusChangedAt: '2026-11-01T00:00:00.000Z',
    request: { ...summariserOnDedicatedL4, name },
    placement: { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
    mode: 'apply',
    createdBy: 'user:default/alice',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedBy: 'user:default/alice',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
  return {
    service,
    reservations: [],
    basis: 'cluster-status',
    runs: [],
    spending: [],
  } as ServiceAllocation;
}

/** A Prometheus answering `tokensPerSecond` per model name, or failing; counts the queries. */
function fakePrometheus(answer: () => Record<string, number> | 'fail') {
  const seen = { queries: [] as string[] };
  const fetchImpl = (async (_url: string, init?: RequestInit) => {
    const query = new URLSearchParams(String(init?.body)).get('query')!;
    seen.queries.push(query);
    const values = answer();
    if (values === 'fail') {
      return new Response('boom', { status: 503 });
    }
    return new Response(
      JSON.stringify({
        status: 'success',
        data: {
          resultType: 'vector',
          result: Object.entries(values).map(([model, v]) => ({
            metric: { namespace: 'ml-serving', model_name: model },
            value: [0, String(v)],
          })),
        },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  }) as typeof fetch;
  const client = () =>
    new PrometheusClient(
      { baseUrl: 'http://prometheus.test', timeoutMs: 1000 },
      fetchImpl,
    );
  return { seen, client };
}

describe('MeasuredCapacities', () => {
  const END_MS = Date.parse('2026-12-01T12:00:00Z');

  it('keys each service with tokens by its model and slice shape, with where it came from', async () => {
    const { client } = fakePrometheus(() => ({ writer: 1500 }));
    const capacities = new MeasuredCapacities({
      platform,
      list: async () => [
        allocation('writer'),
        allocation('idle'),
        // Its pool left the config: no slice, not measured.
        allocation('gone', {
          pool: 'retired',
          placement: { tier: 'dedicated', pool: 'retired', gpusPerReplica: 1 },
        }),
      ],
      client,
      clock: () => END_MS,
    });
    expect(await capacities.current()).toEqual([
      {
        shape: {
          model: 'llama-3.1-8b',
          dtype: 'bf16',
          gpuModel: 'L4',
          tier: 'dedicated',
          gpusPerReplica: 1,
          gpuShare: 1,
        },
        tokensPerSecond: 1500,
        source: {
          serviceId: 'id-writer',
          service: 'writer',
          windowStart: '2026-11-24T12:00:00.000Z',
          windowEnd: '2026-12-01T12:00:00.000Z',
        },
      },
    ]);
  });

  it('serves quotes from its last set, and measures again in the background after the TTL', async () => {
    let rate = 1500;
    let now = END_MS;
    const { seen, client } = fakePrometheus(() => ({ writer: rate }));
    const capacities = new MeasuredCapacities({
      platform,
      list: async () => [allocation('writer')],
      client,
      clock: () => now,
    });
    expect((await capacities.current())[0].tokensPerSecond).toBe(1500);
    expect((await capacities.current())[0].tokensPerSecond).toBe(1500);
    expect(seen.queries).toHaveLength(1);

    rate = 1800;
    now += CAPACITY_TTL_MS;
    // Stale: answered at once from the last set while a new one is measured.
    expect((await capacities.current())[0].tokensPerSecond).toBe(1500);
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(seen.queries).toHaveLength(2);
    expect((await capacities.current())[0].tokensPerSecond).toBe(1800);
  });

  it('is empty when Prometheus fails or is not configured, so quotes keep the estimate', async () => {
    const { client } = fakePrometheus(() => 'fail');
    const failing = new MeasuredCapacities({
      platform,
      list: async () => [allocation('writer')],
      client,
      clock: () => END_MS,
    });
    expect(await failing.current()).toEqual([]);
    const none = new MeasuredCapacities({
      platform,
      list: async () => [allocation('writer')],
      client: () => undefined,
    });
    expect(await none.current()).toEqual([]);
  });
});
