import { ConfigReader } from '@backstage/config';
import { readPrometheusConfig } from './PrometheusConfig';
import {
  anyOf,
  dcgmSeries,
  podsOfDeployments,
  windowIncrease,
  windowRange,
} from './promql';

const defaults = readPrometheusConfig(
  new ConfigReader({ gpu: { prometheus: { baseUrl: 'http://p:9090/' } } }),
)!;

describe('PromQL building', () => {
  it('selects a window as (t - window, t] on Prometheus 2.x and 3.x alike, and extrapolates increases to it', () => {
    expect(windowRange(86400)).toBe('86399999ms');
    expect(windowRange(0)).toBe('999ms');
    expect(windowIncrease('c{a="b"}', 3600)).toBe(
      '(rate(c{a="b"}[3599999ms]) * 3600)',
    );
  });

  it('escapes names into an anchored alternative', () => {
    expect(anyOf(['b', 'a.b', 'a.b'])).toBe('(?:a\\.b|b)');
    expect(anyOf([])).toBe('(?!)');
    expect(podsOfDeployments(['chat'])).toBe('(?:chat)-[a-z0-9]+-[a-z0-9]+');
  });

  it('accepts pod and exported_pod labels by default, renaming exported_* to pod and namespace', () => {
    const promql = dcgmSeries(
      'M',
      { pod: 'p', namespace: 'n' },
      defaults.labels,
      s => `f(${s})`,
    );
    expect(promql).toBe(
      '(label_replace(label_replace(f(M{exported_pod=~"p",exported_namespace=~"n"}),"pod","$1","exported_pod","(.+)"),' +
        '"namespace","$1","exported_namespace","(.+)") or f(M{pod=~"p",namespace=~"n",exported_pod=""}))',
    );
  });

  it('uses configured label names as they are', () => {
    const labels = readPrometheusConfig(
      new ConfigReader({
        gpu: {
          prometheus: {
            baseUrl: 'http://p',
            labels: {
              pod: 'exported_pod',
              namespace: 'exported_namespace',
              hostname: 'hostname',
            },
          },
        },
      }),
    )!.labels;
    expect(dcgmSeries('M', { hostname: 'h' }, labels, s => s)).toBe(
      'M{exported_pod!="",exported_namespace!="",hostname=~"h"}',
    );
  });
});

describe('readPrometheusConfig', () => {
  it('is undefined without a baseUrl section and has defaults otherwise', () => {
    expect(readPrometheusConfig(new ConfigReader({}))).toBeUndefined();
    expect(defaults).toEqual({
      baseUrl: 'http://p:9090',
      timeoutMs: 5000,
      requestDeadlineMs: 8000,
      circuitBreaker: { failures: 5, openMs: 30_000 },
      concurrency: { perRequest: 4, overall: 16 },
      labels: {
        pod: undefined,
        namespace: undefined,
        hostname: 'Hostname',
        gpu: 'gpu',
        migInstance: 'GPU_I_ID',
        migProfile: 'GPU_I_PROFILE',
      },
      simulated: false,
    });
  });

  it('builds bearer and basic authorization', () => {
    const read = (auth: object) =>
      readPrometheusConfig(
        new ConfigReader({
          gpu: { prometheus: { baseUrl: 'http://p', auth } },
        }),
      )!.authorization;
    expect(read({ token: 't0k' })).toBe('Bearer t0k');
    expect(read({ username: 'u', password: 'p' })).toBe(
      `Basic ${Buffer.from('u:p').toString('base64')}`,
    );
  });

  it.each([
    [{ baseUrl: 'not a url' }, /Invalid gpu.prometheus.baseUrl/],
    [{ baseUrl: 'ftp://p' }, /expected an http\(s\) URL/],
    [{ baseUrl: 'http://p', timeout: 0 }, /Invalid gpu.prometheus.timeout/],
    [
      { baseUrl: 'http://p', labels: { pod: 'bad-label' } },
      /Invalid gpu.prometheus.labels.pod/,
    ],
  ])('rejects %p', (prometheus, message) => {
    expect(() =>
      readPrometheusConfig(new ConfigReader({ gpu: { prometheus } })),
    ).toThrow(message);
  });
});
