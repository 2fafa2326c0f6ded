import { registerMswTestHooks } from '@backstage/backend-test-utils';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { PrometheusClient } from './PrometheusClient';
import { QuerySlots } from './QuerySlots';

const server = setupServer();
registerMswTestHooks(server);

const BASE = 'http://prometheus.test:9090';
const settings = {
  baseUrl: BASE,
  timeoutMs: 200,
  authorization: 'Bearer s3cret',
};

describe('PrometheusClient', () => {
  it('POSTs form-encoded instant queries with auth and parses vectors, skipping NaN and Inf samples', async () => {
    let seen: {
      contentType?: string | null;
      auth?: string | null;
      form?: URLSearchParams;
    } = {};
    server.use(
      http.post(`${BASE}/api/v1/query`, async ({ request }) => {
        seen = {
          contentType: request.headers.get('content-type'),
          auth: request.headers.get('authorization'),
          form: new URLSearchParams(await request.text()),
        };
        return HttpResponse.json({
          status: 'success',
          data: {
            resultType: 'vector',
            result: [
              { metric: { pod: 'a-1-2' }, value: [1700000000, '42.5'] },
              { metric: { pod: 'b-1-2' }, value: [1700000000, 'NaN'] },
              { metric: { pod: 'c-1-2' }, value: [1700000000, '+Inf'] },
            ],
          },
        });
      }),
    );
    const client = new PrometheusClient(settings);
    const result = await client.query('up{job="x"}', 1700000000);
    expect(seen.contentType).toBe('application/x-www-form-urlencoded');
    expect(seen.auth).toBe('Bearer s3cret');
    expect(seen.form?.get('query')).toBe('up{job="x"}');
    expect(seen.form?.get('time')).toBe('1700000000');
    expect(result).toEqual({
      ok: true,
      data: [{ labels: { pod: 'a-1-2' }, value: 42.5 }],
      warnings: ['skipped 2 NaN, infinite or non-numeric samples'],
    });
    expect(client.queryCount).toBe(1);
  });

  it('parses range queries into numeric points', async () => {
    server.use(
      http.post(`${BASE}/api/v1/query_range`, async ({ request }) => {
        const form = new URLSearchParams(await request.text());
        expect(form.get('step')).toBe('60');
        return HttpResponse.json({
          status: 'success',
          data: {
            resultType: 'matrix',
            result: [
              {
                metric: { a: '1' },
                values: [
                  [1, '1'],
                  [61, '2.5'],
                ],
              },
            ],
          },
        });
      }),
    );
    const result = await new PrometheusClient(settings).queryRange(
      'x',
      1,
      61,
      60,
    );
    expect(result).toEqual({
      ok: true,
      data: [
        {
          labels: { a: '1' },
          points: [
            [1, 1],
            [61, 2.5],
          ],
        },
      ],
    });
  });

  it('maps a Prometheus error to a reason', async () => {
    server.use(
      http.post(`${BASE}/api/v1/query`, () =>
        HttpResponse.json(
          {
            status: 'error',
            errorType: 'bad_data',
            error: 'parse error at char 3',
          },
          { status: 400 },
        ),
      ),
    );
    expect(await new PrometheusClient(settings).query('x{', 1)).toEqual({
      ok: false,
      reason: 'Prometheus query failed (bad_data: parse error at char 3)',
    });
  });

  it('maps a non-JSON 5xx to a reason with the status', async () => {
    server.use(
      http.post(
        `${BASE}/api/v1/query`,
        () =>
          new HttpResponse('oops', {
            status: 503,
            statusText: 'Service Unavailable',
          }),
      ),
    );
    expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
      ok: false,
      reason: 'Prometheus query failed (HTTP 503 Service Unavailable)',
    });
  });

  it('times out a slow Prometheus', async () => {
    server.use(
      http.post(`${BASE}/api/v1/query`, async () => {
        await delay(2000);
        return HttpResponse.json({
          status: 'success',
          data: { resultType: 'vector', result: [] },
        });
      }),
    );
    expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
      ok: false,
      reason: 'Prometheus did not answer within 200 ms',
    });
  });

  it('reports an unreachable Prometheus', async () => {
    server.use(http.post(`${BASE}/api/v1/query`, () => HttpResponse.error()));
    const result = await new PrometheusClient(settings).query('x', 1);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(
      /^Prometheus is unreachable at http:\/\/prometheus.test:9090/,
    );
  });

  it('rejects a matrix where a vector was expected', async () => {
    server.use(
      http.post(`${BASE}/api/v1/query`, () =>
        HttpResponse.json({
          status: 'success',
          data: { resultType: 'matrix', result: [] },
        }),
      ),
    );
    expect(await new PrometheusClient(settings).query('x[5m]', 1)).toEqual({
      ok: false,
      reason: 'Prometheus returned a matrix where a vector was expected',
    });
  });

  describe('answers a real Prometheus (or a proxy or Thanos in front of it) can give', () => {
    const answer = (body: object, path = '/api/v1/query') =>
      server.use(http.post(`${BASE}${path}`, () => HttpResponse.json(body)));

    it.each([
      ['null', null, 'Prometheus returned a null result: read as no series'],
      [
        'missing',
        undefined,
        'Prometheus returned no result: read as no series',
      ],
      [
        'not an array',
        {},
        'Prometheus returned a non-array result: read as no series',
      ],
    ])(
      'reads a %s result as no series, with a warning',
      async (_, result, warning) => {
        answer({ status: 'success', data: { resultType: 'vector', result } });
        expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
          ok: true,
          data: [],
          warnings: [warning],
        });
      },
    );

    it('skips series without a value and reads a missing metric as no labels', async () => {
      answer({
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { value: [1, '3'] },
            { metric: { pod: 'a-1-2' } },
            { metric: { pod: 'b-1-2' }, value: [1, 'abc'] },
            { metric: { pod: 'c-1-2' }, value: [1, '-Inf'] },
          ],
        },
      });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: true,
        data: [{ labels: {}, value: 3 }],
        warnings: [
          'skipped 1 malformed series or samples',
          'skipped 2 NaN, infinite or non-numeric samples',
        ],
      });
    });

    it('reads a scalar as one sample without labels, and a malformed one as none', async () => {
      answer({
        status: 'success',
        data: { resultType: 'scalar', result: [1, '42'] },
      });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: true,
        data: [{ labels: {}, value: 42 }],
      });
      answer({
        status: 'success',
        data: { resultType: 'scalar', result: '42' },
      });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: true,
        data: [],
        warnings: ['skipped 1 malformed series or samples'],
      });
    });

    it('keeps string labels only and skips series whose labels or sample are not what the API sends', async () => {
      answer({
        status: 'success',
        data: {
          resultType: 'vector',
          result: [
            { metric: { pod: 'a-1-2', gpu: 0, node: null }, value: [1, '5'] },
            { metric: ['pod'], value: [1, '6'] },
            { metric: 'pod', value: [1, '6'] },
            { metric: { pod: 'b-1-2' }, value: ['1', '6'] },
            { metric: { pod: 'c-1-2' }, value: [1, '6', 7] },
            'series',
            null,
          ],
        },
      });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: true,
        data: [{ labels: { pod: 'a-1-2' }, value: 5 }],
        warnings: ['skipped 6 malformed series or samples'],
      });
    });

    it('merges duplicated series whatever their order, keeping the highest value', async () => {
      const a = { metric: { pod: 'a-1-2', gpu: '0' }, value: [1, '10'] };
      const b = { metric: { gpu: '0', pod: 'a-1-2' }, value: [1, '30'] };
      for (const result of [
        [a, b],
        [b, a],
      ]) {
        answer({ status: 'success', data: { resultType: 'vector', result } });
        const got = await new PrometheusClient(settings).query('x', 1);
        expect(got).toEqual({
          ok: true,
          data: [{ labels: { pod: 'a-1-2', gpu: '0' }, value: 30 }],
          warnings: ['merged 1 duplicated series (same labels)'],
        });
      }
    });

    it('keeps the data of a partial response and its warnings', async () => {
      answer({
        status: 'success',
        warnings: ['No StoreAPIs matched for this query'],
        data: {
          resultType: 'vector',
          result: [{ metric: { pod: 'a-1-2' }, value: [1, '1'] }],
        },
      });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: true,
        data: [{ labels: { pod: 'a-1-2' }, value: 1 }],
        warnings: ['Prometheus warning: No StoreAPIs matched for this query'],
      });
    });

    it('cleans range series: null result, missing values, malformed and NaN points and duplicates', async () => {
      answer(
        { status: 'success', data: { resultType: 'matrix', result: null } },
        '/api/v1/query_range',
      );
      expect(
        await new PrometheusClient(settings).queryRange('x', 1, 61, 60),
      ).toEqual({
        ok: true,
        data: [],
        warnings: ['Prometheus returned a null result: read as no series'],
      });
      answer(
        {
          status: 'success',
          data: {
            resultType: 'matrix',
            result: [
              { metric: { a: '1' } },
              { metric: { a: '1' }, values: 'none' },
              {
                metric: { a: '1' },
                values: [
                  [61, '4'],
                  [1, 'NaN'],
                  ['121', '5'],
                  [121],
                  [121, '5', 'extra'],
                  { 0: 121, 1: '5' },
                ],
              },
              {
                metric: { a: '1' },
                values: [
                  [1, '2'],
                  [61, '3'],
                ],
              },
            ],
          },
        },
        '/api/v1/query_range',
      );
      expect(
        await new PrometheusClient(settings).queryRange('x', 1, 61, 60),
      ).toEqual({
        ok: true,
        data: [
          {
            labels: { a: '1' },
            points: [
              [1, 2],
              [61, 4],
            ],
          },
        ],
        warnings: [
          'skipped 6 malformed series or samples',
          'skipped 1 NaN, infinite or non-numeric samples',
          'merged 1 duplicated series (same labels)',
        ],
      });
    });

    it('reports a 200 whose body is not an API response as a failure', async () => {
      answer({ hello: 'proxy' });
      expect(await new PrometheusClient(settings).query('x', 1)).toEqual({
        ok: false,
        reason:
          'Prometheus query failed (the answer is not a Prometheus API response)',
      });
    });
  });

  it('uses shared slots beyond its share while the share stays free for others, never more than the shared limit', async () => {
    let inFlight = 0;
    let peak = 0;
    server.use(
      http.post(`${BASE}/api/v1/query`, async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await delay(20);
        inFlight -= 1;
        return HttpResponse.json({
          status: 'success',
          data: { resultType: 'vector', result: [] },
        });
      }),
    );
    const overall = new QuerySlots(5);
    const clients = [1, 2, 3].map(
      () => new PrometheusClient(settings, fetch, { perRequest: 2, overall }),
    );
    const one = clients[0];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => one.query(`q${i}`, 1)),
    );
    // Alone: all of the 5 shared slots but its share of 2, kept free for the next client.
    expect(peak).toBe(3);
    peak = 0;
    // Without shared slots, its share is its own limit.
    const own = new PrometheusClient(settings, fetch, { perRequest: 2 });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => own.query(`q${i}`, 1)),
    );
    expect(peak).toBe(2);
    peak = 0;
    await Promise.all(
      clients.flatMap(c =>
        Array.from({ length: 10 }, (_, i) => c.query(`q${i}`, 1)),
      ),
    );
    expect(peak).toBe(5);
    expect(overall.active).toBe(0);
  });
});
