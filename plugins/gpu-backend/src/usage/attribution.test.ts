import { DeviceSample, PodSample } from '../metrics/collectMetrics';
import { Interval } from './accrual';
import { attributeUsage, AttributionTarget } from './attribution';
import { StepSamples } from './stepSamples';
import { ok, windowMetrics as metrics } from './__testUtils__/windowMetrics';

const failed = {
  ok: false as const,
  reason: 'Prometheus did not answer within 5000 ms',
};

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

/** A pod's GPU sampled 3 times a step at `percent` over steps [from, until] (1-based) of a 900 s grid. */
function stepSeries(
  pod: string,
  gpu: string,
  from: number,
  until: number,
  percent: number,
  partial: Record<number, number> = {},
): StepSamples {
  const counts = new Map<number, number>();
  const sums = new Map<number, number>();
  for (let i = from; i <= until; i++) {
    const n = partial[i] ?? 3;
    counts.set(i * 900, n);
    sums.set(i * 900, n * percent);
  }
  return {
    namespace: 'ml',
    pod,
    hostname: 'node-1',
    gpu,
    metric: 'util',
    counts,
    sums,
  };
}

describe('attributeUsage', () => {
  it('counts the GPUs of one pod, not of a rescheduled pod and its replacement together, and measures over the time held', () => {
    const times = Array.from({ length: 96 }, (_, i) => (i + 1) * 900);
    // Held for the last 12 hours; the old pod (GPU 0) is replaced at step 60 by one on GPU 1, both sampled in it.
    const span: Interval[] = [[48 * 900 * 1000, 96 * 900 * 1000]];
    const result = attributeUsage(
      [{ ...target('a', 'dedicated', 1), span, replicas: 1 }],
      metrics({}),
      { end: 96 * 900, seconds: 86400, step: 900 },
      {
        samples: ok([
          stepSeries('a-old-x', '0', 1, 60, 80, { 60: 1 }),
          stepSeries('a-new-y', '1', 60, 96, 20, { 60: 2 }),
        ]),
        grid: { times, step: 900, interval: 300 },
      },
    ).get('a')!;
    expect(result.utilisation!.note).toBe(
      "DCGM GPU utilisation of the service's 1 GPU",
    );
    // Steps 49-60 at 80% (step 60: one sample of 80, two of 20), 61-96 at 20%: measured over the 12 hours held only.
    const samples = 11 * 3 * 80 + 80 + 2 * 20 + 36 * 3 * 20;
    expect(result.utilisation!.value).toBeCloseTo(samples / (48 * 3) / 100, 9);
    expect(result.utilisation!.coverage).toBe(1);
    expect(result.utilisation!.confidence).toBe('high');
  });

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
    expect(at(48).note).toMatch(
      /measured over 50% of the time it held its GPUs/,
    );
    expect(at(24)).toMatchObject({ confidence: 'low', coverage: 0.25 });
  });

  // Shared tiers: a 4-step window (steps at 900, 1800, 2700, 3600), each pod's DCGM and token series per step.
  const window = { end: 3600, seconds: 3600, step: 900 };
  const steps = [900, 1800, 2700, 3600];
  const perStep = (values: number[], at = steps) =>
    new Map(values.map((v, i) => [at[i], v] as [number, number]));
  const onDevice = (pod: string, values: number[], at = steps) => ({
    namespace: 'ml',
    pod,
    hostname: 'node-1',
    gpu: '0',
    points: perStep(values, at),
  });
  const stepTokens = (pod: string, values: number[], at = steps) => ({
    namespace: 'ml',
    pod,
    points: perStep(values, at),
  });

  it('splits a time-sliced device evenly when nobody generated tokens, with low confidence', () => {
    const result = attributeUsage(
      [target('a', 'time-sliced', 0.5), target('b', 'time-sliced', 0.5)],
      metrics({
        util: ok([device('a-1-x', 40), device('b-1-y', 40)]),
        fbUsed: ok([device('a-1-x', 8000), device('b-1-y', 8000)]),
        sharedUtil: ok([
          onDevice('a-1-x', [40, 40, 40, 40]),
          onDevice('b-1-y', [40, 40, 40, 40]),
        ]),
        sharedPlacement: ok([]),
        sharedTokens: ok([]),
      }),
      window,
    );
    expect(result.get('a')!.utilisation).toMatchObject({
      value: 0.4,
      method: 'apportioned-evenly',
      confidence: 'low',
      coverage: 1,
    });
    expect(result.get('a')!.busyGpuSeconds).toBeCloseTo(4 * 0.2 * 900, 9);
    expect(result.get('a')!.memoryUsedBytes!.value).toBe(4000 * 1024 * 1024);
  });

  it('splits a shared device by tokens step by step and caps a busy share at 1', () => {
    const result = attributeUsage(
      [target('a', 'mps', 0.25), target('b', 'mps', 0.25)],
      metrics({
        util: ok([device('a-1-x', 80), device('b-1-y', 80)]),
        sharedUtil: ok([
          onDevice('a-1-x', [80, 80, 80, 80]),
          onDevice('b-1-y', [80, 80, 80, 80]),
        ]),
        sharedPlacement: ok([]),
        sharedTokens: ok([
          stepTokens('a-1-x', [900, 900, 900, 900]),
          stepTokens('b-1-y', [100, 100, 100, 100]),
        ]),
      }),
      window,
    );
    expect(result.get('a')!.utilisation!.value).toBe(1);
    expect(result.get('b')!.utilisation!.value).toBeCloseTo(
      (0.8 * 0.1) / 0.25,
      12,
    );
    expect(result.get('b')!.utilisation!.method).toBe('apportioned-by-tokens');
    expect(result.get('b')!.shareOfDevice).toBeCloseTo(0.1, 12);
  });

  it("gives a pod alone on the device all of its busy time (6 h and 24 h pods: the 18 h alone are the long one's)", () => {
    // 'short' is there at the last step only; tokens 3:1 then.
    const result = attributeUsage(
      [
        target('long', 'time-sliced', 0.25),
        target('short', 'time-sliced', 0.25),
      ],
      metrics({
        sharedUtil: ok([
          onDevice('long-1-x', [20, 20, 20, 20]),
          onDevice('short-1-y', [20], [3600]),
        ]),
        sharedPlacement: ok([]),
        sharedTokens: ok([
          stepTokens('long-1-x', [10, 10, 10, 10]),
          stepTokens('short-1-y', [30], [3600]),
        ]),
      }),
      window,
    );
    const long = result.get('long')!;
    const short = result.get('short')!;
    expect(long.busyGpuSeconds).toBeCloseTo((3 * 0.2 + 0.2 * 0.25) * 900, 9);
    expect(short.busyGpuSeconds).toBeCloseTo(0.2 * 0.75 * 900, 9);
    expect(long.busyGpuSeconds! + short.busyGpuSeconds!).toBeCloseTo(
      4 * 0.2 * 900,
      9,
    );
    expect(short.utilisation).toMatchObject({
      value: (0.2 * 0.75) / 0.25,
      coverage: 0.25,
      confidence: 'low',
    });
    expect(long.utilisation!.value).toBeCloseTo(0.65 / 0.25 / 4, 12);
    expect(short.utilisationSeries).toEqual([
      { timestamp: 3600_000, value: expect.closeTo(0.6, 12) },
    ]);
    expect(long.utilisationSeries!.map(p => p.value)).toEqual([
      expect.closeTo(0.8, 12),
      expect.closeTo(0.8, 12),
      expect.closeTo(0.8, 12),
      expect.closeTo(0.2, 12),
    ]);
  });

  it('reads one labelled pod as the device and splits it with the pods kube-state-metrics places on the node', () => {
    const result = attributeUsage(
      [
        target('seen', 'time-sliced', 0.25),
        target('hidden', 'time-sliced', 0.25),
      ],
      metrics({
        sharedUtil: ok([onDevice('seen-1-x', [20, 20, 20, 20])]),
        sharedPlacement: ok([
          {
            namespace: 'ml',
            pod: 'hidden-1-y',
            hostname: 'node-1',
            steps: new Set(steps),
          },
        ]),
        sharedTokens: ok([
          stepTokens('seen-1-x', [20, 20, 20, 20]),
          stepTokens('hidden-1-y', [60, 60, 60, 60]),
        ]),
      }),
      window,
    );
    expect(result.get('seen')!.utilisation!.value).toBeCloseTo(0.2, 12);
    expect(result.get('hidden')!.utilisation!.value).toBeCloseTo(0.6, 12);
    expect(result.get('hidden')!.seriesCount).toBe(1);
    expect(result.get('hidden')!.utilisation!.note).toMatch(
      /labelled one pod of the GPU at 4 steps/,
    );
  });

  it('keeps per-pod values as they are (no split), measured', () => {
    const result = attributeUsage(
      [target('busy', 'mps', 0.25), target('quiet', 'mps', 0.25)],
      metrics({
        sharedUtil: ok([
          onDevice('busy-1-x', [15, 15, 15, 15]),
          onDevice('quiet-1-y', [5, 5, 5, 5]),
        ]),
        sharedPlacement: ok([]),
        sharedTokens: ok([
          stepTokens('busy-1-x', [50, 50, 50, 50]),
          stepTokens('quiet-1-y', [50, 50, 50, 50]),
        ]),
      }),
      window,
    );
    expect(result.get('busy')!.utilisation).toMatchObject({
      method: 'measured',
      confidence: 'high',
    });
    expect(result.get('busy')!.utilisation!.value).toBeCloseTo(0.6, 12);
    expect(result.get('quiet')!.utilisation!.value).toBeCloseTo(0.2, 12);
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
