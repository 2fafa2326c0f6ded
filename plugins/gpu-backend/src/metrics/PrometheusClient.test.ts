import { registerMswTestHooks } from '@backstage/backend-test-utils';
import { delay, http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { PrometheusClient } from './PrometheusClient';

const server = setupServer();
registerMswTestHooks(server);

const BASE = 'http://prometheus.test:9090';
const settings = {
  baseUrl: BASE,
  timeoutMs: 200,
  authorization: 'Bearer s3cret',
};

describe('PrometheusClient', () => {
  it('POSTs form-encoded instant queries with auth and parses vectors, NaN and Inf', async () => {
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
      data: [
        { labels: { pod: 'a-1-2' }, value: 42.5 },
        { labels: { pod: 'b-1-2' }, value: NaN },
        { labels: { pod: 'c-1-2' }, value: Infinity },
      ],
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
});
