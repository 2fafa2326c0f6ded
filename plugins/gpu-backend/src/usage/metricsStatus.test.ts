import { WindowMetrics } from '../metrics/collectMetrics';
import { ConfigReader } from '@backstage/config';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  answeredStatus,
  metricsStatus,
  NOT_CONFIGURED,
} from './metricsStatus';

const ok = { ok: true as const, data: [] };
const failed = (reason: string) => ({ ok: false as const, reason });

function metrics(partial: Partial<WindowMetrics>): WindowMetrics {
  return {
    util: ok,
    engine: ok,
    fbUsed: ok,
    fbUsedPeak: ok,
    fbFree: ok,
    power: ok,
    xidSamples: ok,
    xidLast: ok,
    recentPeakUtil: ok,
    generated: ok,
    prompt: ok,
    running: ok,
    waiting: ok,
    kvCache: ok,
    latencyP50: ok,
    latencyP95: ok,
    latencyP99: ok,
    ...partial,
  };
}

describe('metricsStatus', () => {
  it('is available when every family answered', () => {
    expect(metricsStatus(metrics({}))).toEqual({ state: 'available' });
  });

  it('is partial, naming the metrics, when some families failed', () => {
    expect(
      metricsStatus(
        metrics({
          latencyP95: failed('Prometheus query failed (HTTP 503)'),
          latencyP99: failed('Prometheus query failed (HTTP 503)'),
          power: failed('Prometheus did not answer within 5000 ms'),
        }),
      ),
    ).toEqual({
      state: 'partial',
      reason:
        'Prometheus did not answer within 5000 ms; Prometheus query failed (HTTP 503)',
      missing: ['DCGM_FI_DEV_POWER_USAGE', 'vllm:e2e_request_latency_seconds'],
    });
  });

  it('is unavailable when neither utilisation family answered', () => {
    expect(
      metricsStatus(
        metrics({
          util: failed('Prometheus did not answer within 5000 ms'),
          engine: failed('Prometheus did not answer within 5000 ms'),
        }),
      ),
    ).toEqual({
      state: 'unavailable',
      reason: 'Prometheus did not answer within 5000 ms',
    });
  });
});

describe('answeredStatus', () => {
  it('says simulated when gpu.prometheus.simulated is set, whatever the state but not-configured', () => {
    const simulated = { simulated: true };
    expect(answeredStatus({ state: 'available' }, simulated)).toEqual({
      state: 'available',
      simulated: true,
    });
    expect(
      answeredStatus({ state: 'no-data', reason: 'none yet' }, simulated),
    ).toEqual({ state: 'no-data', reason: 'none yet', simulated: true });
    expect(answeredStatus(NOT_CONFIGURED, simulated)).toBe(NOT_CONFIGURED);
    expect(answeredStatus({ state: 'available' }, { simulated: false })).toEqual(
      { state: 'available' },
    );
    expect(answeredStatus({ state: 'available' }, undefined)).toEqual({
      state: 'available',
    });
  });

  it('is read once from gpu.prometheus.simulated, false by default', () => {
    const read = (prometheus: object) =>
      readPrometheusConfig(
        new ConfigReader({
          gpu: { prometheus: { baseUrl: 'http://127.0.0.1:9090', ...prometheus } },
        }),
      )?.simulated;
    expect(read({})).toBe(false);
    expect(read({ simulated: true })).toBe(true);
    expect(() => read({ simulated: 'maybe' })).toThrow(/simulated/);
  });
});
