import {
  mockServices,
  registerMswTestHooks,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import express from 'express';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { delay, http, HttpResponse, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import request from 'supertest';
import { allowAllUsageRoutes } from '../__testUtils__/allowAllUsageRoutes';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

// Each test boots a backend and answers dozens of queries; on a busy 2-core machine that passes the default 5 s.
jest.setTimeout(30_000);

// supertest calls the app over loopback: let those through, fake only Prometheus.
const server = setupServer(
  http.all(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/, () =>
    passthrough(),
  ),
);
registerMswTestHooks(server);

const PROMETHEUS = 'http://prometheus.test:9090';
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const now = DateTime.fromISO('2026-11-20T12:00:00Z', { zone: 'utc' });
const chatPod = 'chat-6f7d8c9b5-p0x7k';

const dcgmLabels = {
  namespace: 'ml-serving',
  pod: chatPod,
  Hostname: 'l4-node-1',
  gpu: '0',
};
const vllmLabels = {
  namespace: 'ml-serving',
  pod: chatPod,
  model_name: 'chat',
};

/** One good series of the chat pod for the query (DCGM 40%, vLLM 1000). */
function goodSeries(query: string, range: boolean) {
  const vllm = query.includes('vllm:');
  const metric = vllm ? vllmLabels : dcgmLabels;
  const value = vllm ? '1000' : '40';
  return range
    ? {
        metric,
        values: [
          [now.toSeconds() - 60, value],
          [now.toSeconds(), value],
        ],
      }
    : { metric, value: [now.toSeconds(), value] };
}

type Shape = (
  query: string,
  range: boolean,
) => { data: object; warnings?: string[] };

/** Answers a real Prometheus, or a proxy or Thanos in front of it, can give; each breaks the parsing of before. */
const SHAPES: Record<string, { shape: Shape; reason: RegExp }> = {
  'a null result': {
    shape: (_, range) => ({
      data: { resultType: range ? 'matrix' : 'vector', result: null },
    }),
    reason: /Prometheus returned a null result: read as no series/,
  },
  'no result at all': {
    shape: (_, range) => ({
      data: { resultType: range ? 'matrix' : 'vector' },
    }),
    reason: /Prometheus returned no result: read as no series/,
  },
  'an empty result with a warning (partial response)': {
    shape: (_, range) => ({
      data: { resultType: range ? 'matrix' : 'vector', result: [] },
      warnings: ['PromQL info: store gateway unavailable'],
    }),
    reason: /Prometheus warning: PromQL info: store gateway unavailable/,
  },
  'series without metric or values': {
    shape: (query, range) => ({
      data: {
        resultType: range ? 'matrix' : 'vector',
        result: [
          {},
          { value: [now.toSeconds(), '5'] },
          goodSeries(query, range),
        ],
      },
    }),
    reason: /skipped \d+ malformed series or samples/,
  },
  'duplicated series': {
    shape: (query, range) => ({
      data: {
        resultType: range ? 'matrix' : 'vector',
        result: [goodSeries(query, range), goodSeries(query, range)],
      },
    }),
    reason: /merged 1 duplicated series \(same labels\)/,
  },
  'NaN, +Inf, -Inf and non-numeric values': {
    shape: (query, range) => {
      const metric = query.includes('vllm:') ? vllmLabels : dcgmLabels;
      const t = now.toSeconds();
      return {
        data: range
          ? {
              resultType: 'matrix',
              result: [
                {
                  metric,
                  values: [
                    [t - 180, 'NaN'],
                    [t - 120, '+Inf'],
                    [t - 60, '-Inf'],
                    [t, 'x'],
                  ],
                },
              ],
            }
          : {
              resultType: 'vector',
              result: [
                { metric, value: [t, 'NaN'] },
                { metric: { ...metric, gpu: '1' }, value: [t, '+Inf'] },
                { metric: { ...metric, gpu: '2' }, value: [t, '-Inf'] },
                { metric: { ...metric, gpu: '3' }, value: [t, 'abc'] },
              ],
            },
      };
    },
    reason: /skipped 4 NaN, infinite or non-numeric samples/,
  },
};

describe('usage routes on bad Prometheus answers', () => {
  let knex: Knex;
  let store: DatabaseGpuStore;
  let ids: Record<string, string>;

  beforeAll(async () => {
    knex = await databases.init('SQLITE_3');
    store = await DatabaseGpuStore.create({
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

  function usageService(concurrency?: object) {
    return new UsageService({
      platform,
      reader: new AllocationReader(knex),
      snapshots: new CostSnapshotStore(knex),
      quotas: { getQuota: async () => undefined, listQuotas: async () => [] },
      prometheus: readPrometheusConfig(
        new ConfigReader({
          gpu: { prometheus: { baseUrl: PROMETHEUS, concurrency } },
        }),
      ),
      now: () => now,
    });
  }

  function app(usage: UsageService) {
    const router = express.Router();
    router.use(allowAllUsageRoutes({ usage, store, platform }));
    router.use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger: mockServices.rootLogger(),
      }).error(),
    );
    return express().use(router);
  }

  /** A fake Prometheus answering every query with `shape`; records the queries. */
  function fakePrometheus(shape: Shape, options: { delayMs?: number } = {}) {
    const seen = { queries: [] as string[], inFlight: 0, peak: 0 };
    const handler =
      (range: boolean) =>
      async ({ request: req }: { request: Request }) => {
        const query = new URLSearchParams(await req.text()).get('query')!;
        seen.queries.push(query);
        seen.inFlight += 1;
        seen.peak = Math.max(seen.peak, seen.inFlight);
        try {
          if (options.delayMs) await delay(options.delayMs);
          return HttpResponse.json({
            status: 'success',
            ...shape(query, range),
          });
        } finally {
          seen.inFlight -= 1;
        }
      };
    server.use(
      http.post(`${PROMETHEUS}/api/v1/query`, handler(false)),
      http.post(`${PROMETHEUS}/api/v1/query_range`, handler(true)),
    );
    return seen;
  }

  const routes = () => [
    `/services/${ids.chat}/usage?window=24h`,
    `/services/${ids.chat}/cost?window=24h`,
    '/teams/ml-platform/cost?window=24h',
    '/overview?window=24h',
  ];

  describe.each(Object.entries(SHAPES))('with %s', (_, { shape, reason }) => {
    it('answers 200 on all four routes with a metrics status saying what was wrong', async () => {
      fakePrometheus(shape);
      const api = app(usageService());
      for (const route of routes()) {
        const response = await request(api).get(route);
        expect({ route, status: response.status }).toEqual({
          route,
          status: 200,
        });
        const metrics = response.body.metrics;
        expect(['partial', 'no-data']).toContain(metrics.state);
        expect(metrics.reason).toMatch(reason);
        expect(metrics.missing.length).toBeGreaterThan(0);
      }
      const cost = await request(api).get(routes()[1]).expect(200);
      expect(cost.body.allocationMicros).toBe(Math.round(0.8048 * 24 * 1e6));
    });
  });

  it('still measures from the good series next to duplicated ones', async () => {
    fakePrometheus(SHAPES['duplicated series'].shape);
    const cost = await request(app(usageService()))
      .get(routes()[1])
      .expect(200);
    expect(cost.body.utilisation).toMatchObject({
      value: 0.4,
      method: 'measured',
    });
    expect(cost.body.generatedTokens).toBe(1000);
  });

  it('never has more PromQL requests in flight than the overall limit, and a request alone leaves its share free', async () => {
    const good: Shape = (query, range) => ({
      data: {
        resultType: range ? 'matrix' : 'vector',
        result: [goodSeries(query, range)],
      },
    });
    const seen = fakePrometheus(good, { delayMs: 15 });
    await request(app(usageService({ perRequest: 3, overall: 5 })))
      .get(routes()[0])
      .expect(200);
    // Alone: its share (3), as no more than the share may leave the share free of the 5.
    expect(seen.peak).toBe(3);
    seen.peak = 0;
    // Four different requests at once (no measurement to share): the overall limit holds.
    const api = app(usageService({ perRequest: 3, overall: 5 }));
    await Promise.all(
      ['1h', '6h', '24h', '7d'].map(w =>
        request(api).get(`/services/${ids.chat}/usage?window=${w}`).expect(200),
      ),
    );
    expect(seen.peak).toBe(5);
    seen.peak = 0;
    // Defaults: a request alone uses the 16 shared slots but its share of 4, kept free for the next request.
    await request(app(usageService())).get(routes()[0]).expect(200);
    expect(seen.peak).toBe(12);
  });

  it('makes one set of window queries for /usage then /cost of the same service and window', async () => {
    const good: Shape = (query, range) => ({
      data: {
        resultType: range ? 'matrix' : 'vector',
        result: [goodSeries(query, range)],
      },
    });
    const seen = fakePrometheus(good);
    const api = app(usageService());
    const usage = await request(api).get(routes()[0]).expect(200);
    const afterUsage = seen.queries.length;
    const cost = await request(api).get(routes()[1]).expect(200);
    const costQueries = seen.queries.slice(afterUsage);
    // /cost adds only its month-to-date measurement (3 families and the step samples over another range) and the
    // service's sustained throughput, completed requests and prefill and decode seconds (4), nothing of the window
    // again.
    expect(costQueries).toHaveLength(8);
    expect(
      costQueries.filter(q => seen.queries.indexOf(q) < afterUsage),
    ).toEqual([]);
    expect(new Set(seen.queries).size).toBe(seen.queries.length);
    expect(cost.body.utilisation).toEqual(usage.body.utilisation);
    // Asked again, the team and overview views and /cost itself query nothing new.
    const before = seen.queries.length;
    await request(api).get(routes()[1]).expect(200);
    await request(api).get(routes()[2]).expect(200);
    expect(seen.queries.length).toBe(before);
  });
});
