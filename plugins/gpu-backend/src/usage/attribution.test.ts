import {
  DeviceSample,
  PodSample,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { attributeUsage, AttributionTarget } from './attribution';

const ok = <T>(data: T[]) => ({ ok: true as const, data });
const failed = {
  ok: false as const,
  reason: 'Prometheus did not answer within 5000 ms',
};

function metrics(partial: Partial<WindowMetrics>): WindowMetrics {
  const empty = ok([]);
  return {
    util: empty,
    engine: empty,
    fbUsed: empty,
    fbUsedPeak: empty,
    fbFree: empty,
    power: empty,
    xidSamples: empty,
    xidLast: empty,
    recentPeakUtil: empty,
    generated: empty,
    prompt: empty,
    running: empty,
    waiting: empty,
    kvCache: empty,
    latencyP50: empty,
    latencyP95: empty,
    latencyP99: empty,
    ...partial,
  };
}

const device = (
  pod: string,
  value: number,
  extra: Partial<DeviceSample> = {},
): DeviceSample => ({
  pod,
  namespace: 'ml',
  hostname: 'node-1',
  gpu: '0',
  value,
  ...extra,
});
const tokens = (pod: string, model: string, value: number): PodSample => ({
  namespace: 'ml',
  pod,
  modelName: model,
  value,
});
const target = (
  id: string,
  tier: AttributionTarget['tier'],
  share: number,
): AttributionTarget => ({
  id,
  namespace: 'ml',
  deployment: id,
  modelName: id,
  tier,
  gpuSharePerReplica: share,
});

describe('attributeUsage', () => {
  it('weighs the pods of a rollout by the steps they existed, and reports coverage', () => {
    const window = { end: 96 * 900, seconds: 86400, step: 900 };
    const result = attributeUsage(
      [target('a', 'dedicated', 1)],
      metrics({
        util: ok([device('a-old-x', 80), device('a-new-y', 10)]),
        fbUsed: ok([device('a-old-x', 12000), device('a-new-y', 12000)]),
        seriesSteps: ok([device('a-old-x', 92), device('a-new-y', 4)]),
        serviceSteps: ok([{ namespace: 'ml', deployment: 'a', value: 96 }]),
      }),
      window,
    );
    const a = result.get('a')!;
    expect(a.utilisation!.value).toBeCloseTo((23 * 0.8 + 1 * 0.1) / 24, 12);
    expect(a.utilisation).toMatchObject({ confidence: 'high', coverage: 1 });
    expect(a.memoryUsedBytes!.value).toBe(12000 * 1024 * 1024);
  });

  it('lowers confidence when coverage is short and says so', () => {
    const window = { end: 96 * 900, seconds: 86400, step: 900 };
    const at = (steps: number) =>
      attributeUsage(
        [target('a', 'dedicated', 1)],
        metrics({
          util: ok([device('a-1-x', 60)]),
          seriesSteps: ok([device('a-1-x', steps)]),
          serviceSteps: ok([
            { namespace: 'ml', deployment: 'a', value: steps },
          ]),
        }),
        window,
      ).get('a')!.utilisation!;
    expect(at(90)).toMatchObject({ confidence: 'high', value: 0.6 });
    expect(at(48)).toMatchObject({ confidence: 'medium', coverage: 0.5 });
    expect(at(48).note).toMatch(/measured over 50% of the window/);
    expect(at(24)).toMatchObject({ confidence: 'low', coverage: 0.25 });
  });

  it('splits a time-sliced device evenly when nobody generated tokens, with low confidence', () => {
    const result = attributeUsage(
      [target('a', 'time-sliced', 0.5), target('b', 'time-sliced', 0.5)],
      metrics({
        util: ok([device('a-1-x', 40), device('b-1-y', 40)]),
        fbUsed: ok([device('a-1-x', 8000), device('b-1-y', 8000)]),
      }),
    );
    expect(result.get('a')!.utilisation).toMatchObject({
      value: 0.4,
      method: 'apportioned-evenly',
      confidence: 'low',
    });
    expect(result.get('a')!.memoryUsedBytes!.value).toBe(4000 * 1024 * 1024);
  });

  it('splits a shared device by tokens and caps a busy share at 1', () => {
    const result = attributeUsage(
      [target('a', 'mps', 0.25), target('b', 'mps', 0.25)],
      metrics({
        util: ok([device('a-1-x', 80), device('b-1-y', 80)]),
        generated: ok([tokens('a-1-x', 'a', 900), tokens('b-1-y', 'b', 100)]),
      }),
    );
    expect(result.get('a')!.utilisation!.value).toBe(1);
    expect(result.get('b')!.utilisation!.value).toBeCloseTo(
      (0.8 * 0.1) / 0.25,
      12,
    );
    expect(result.get('b')!.shareOfDevice).toBeCloseTo(0.1, 12);
  });

  it('reads a MIG instance from GPU_UTIL when the exporter has no engine activity', () => {
    const result = attributeUsage(
      [target('m', 'mig', 1 / 7)],
      metrics({
        util: ok([
          device('m-1-x', 30, { migInstance: '9', migProfile: '1g.10gb' }),
        ]),
      }),
    );
    expect(result.get('m')!.utilisation).toMatchObject({
      value: 0.3,
      method: 'measured-mig-instance',
    });
  });

  it('averages a dedicated service over all its GPUs and sums their memory', () => {
    const result = attributeUsage(
      [target('d', 'dedicated', 2)],
      metrics({
        util: ok([device('d-1-x', 20), device('d-1-x', 60, { gpu: '1' })]),
        fbUsed: ok([
          device('d-1-x', 1000),
          device('d-1-x', 3000, { gpu: '1' }),
        ]),
        fbFree: ok([device('d-1-x', 500), device('d-1-x', 500, { gpu: '1' })]),
      }),
    );
    expect(result.get('d')!.utilisation!.value).toBeCloseTo(0.4, 12);
    expect(result.get('d')!.memoryUsedBytes!.value).toBe(4000 * 1024 * 1024);
    expect(result.get('d')!.deviceMemoryBytes).toBe(5000 * 1024 * 1024);
  });

  it('leaves figures out when their family failed, and ignores pods of other deployments', () => {
    const result = attributeUsage(
      [target('d', 'dedicated', 1)],
      metrics({
        util: failed,
        generated: ok([tokens('other-1-x', 'other', 5)]),
      }),
    );
    expect(result.get('d')).toEqual({ seriesCount: 0 });
  });
});
