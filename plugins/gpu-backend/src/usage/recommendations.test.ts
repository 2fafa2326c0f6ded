import {
  demoPlatformConfig,
  parsePlatform,
  poolPrices,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';
import { Attribution } from './attribution';
import { recommend } from './recommendations';
import { serviceSlice } from './serviceSlice';

const platform = parsePlatform(demoPlatformConfig);
const prices = poolPrices(platform);
const GB = 1e9;

function service(
  tier: SharingTier,
  pool: string,
  environment: string,
  migProfile?: string,
  sizing: Partial<
    Pick<ServiceRecord['request'], 'model' | 'dtype' | 'maxModelLen'>
  > & { gpusPerReplica?: number } = {},
): ServiceRecord {
  const { gpusPerReplica = 1, ...model } = sizing;
  return {
    id: 'svc-1',
    name: 'summariser',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment,
    tier,
    pool,
    status: 'ready',
    reason: 'Available',
    generation: 1,
    statusChangedAt: '2026-11-01T00:00:00.000Z',
    request: {
      name: 'summariser',
      team: 'ml-platform',
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: 1,
      environment,
      ...model,
    },
    placement: {
      tier,
      pool,
      gpusPerReplica,
      ...(migProfile ? { migProfile } : {}),
    },
    mode: 'dry-run',
    createdBy: 'user:default/alice',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedBy: 'user:default/alice',
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
}

function run(
  s: ServiceRecord,
  usage: Partial<Attribution>,
  windowSeconds = 86400,
) {
  return recommend({
    platform,
    prices,
    service: s,
    slice: serviceSlice(platform, s),
    usage: { seriesCount: 1, ...usage },
    monthlyAllocationMicros: 1,
    windowSeconds,
  });
}

const perMonth = (usdPerHour: number) => Math.round(usdPerHour * 730 * 1e6);

/** The service with a latency budget of `p95Seconds`. */
function withBudget(s: ServiceRecord, p95Seconds: number): ServiceRecord {
  return { ...s, request: { ...s.request, latencyBudget: { p95Seconds } } };
}

describe('recommend', () => {
  const quietH100 = {
    utilisation: {
      value: 0.12,
      method: 'measured' as const,
      confidence: 'high' as const,
    },
    peakMemoryBytes: 9 * GB,
    generatedTokens: 1000,
  };

  it('moves 9 GB of an 80 GB H100 at low activity to a MIG slice the model fits, with the monthly saving', () => {
    // Llama-3.1-8B in int4 (AWQ) fits a 1g.10gb slice at max-model-len 8192 and 8 sequences.
    const [rec] = run(
      service('dedicated', 'h100', 'production', undefined, { dtype: 'int4' }),
      quietH100,
    );
    expect(rec).toMatchObject({
      kind: 'right-size',
      target: {
        tier: 'mig',
        pool: 'a100-mig',
        migProfile: '1g.10gb',
        // a100-mig's 1g.10gb weighs 672 of 5040 units (its layout's raw weights 5400 scaled to 5040)
        gpuEquivalents: 672 / 5040,
      },
    });
    expect(rec.monthlySavingMicros).toBeCloseTo(
      perMonth(55.04 / 8 - ((27.447 / 8) * 672) / 5040),
      -1,
    );
    expect(rec.message).toMatch(/Uses 9\.0 GB of 85\.9 GB/);
    expect(rec.message).toMatch(
      /fits llama-3\.1-8b in int4 with max-model-len 8192 and 8 concurrent sequences/,
    );
  });

  it('skips the cheaper slices the model does not fit, as the quote fits it', () => {
    // In bf16 the 8B's 16 GB of weights fit neither 1g.10gb nor 2g.20gb, whatever memory was measured: a whole L4.
    const [rec] = run(service('dedicated', 'h100', 'production'), quietH100);
    expect(rec).toMatchObject({
      kind: 'right-size',
      severity: 'warning',
      target: { tier: 'dedicated', pool: 'l4-ondemand', gpuEquivalents: 1 },
    });
    expect(rec.monthlySavingMicros).toBeCloseTo(
      perMonth(55.04 / 8 - 0.8048),
      -1,
    );
  });

  it('says so instead of suggesting when the model fits no cheaper slice', () => {
    // Llama-3.1-70B in bf16 needs two H100s: a 1g.10gb slice, an L4 or one H100 cannot hold its weights.
    const recs = run(
      service('dedicated', 'h100', 'production', undefined, {
        model: 'llama-3.1-70b',
        gpusPerReplica: 2,
      }),
      quietH100,
    );
    expect(recs).toHaveLength(1);
    const [rec] = recs;
    expect(rec).toMatchObject({
      kind: 'right-size',
      severity: 'info',
      title: 'No smaller slice fits the model',
      monthlySavingMicros: 0,
    });
    expect(rec.target).toBeUndefined();
    expect(rec.message).toMatch(
      /no cheaper slice allowed in production fits llama-3\.1-70b in bf16 with max-model-len 8192 and 8 concurrent sequences \(MIG 1g\.10gb on a100-mig: needs [\d.]+ GB but a 1g\.10gb MIG slice of an A100-80GB gives [\d.]+ GB\)/,
    );
  });

  it('proposes nothing smaller when the model has left the catalogue, and says why', () => {
    const [rec] = run(
      service('dedicated', 'h100', 'production', undefined, {
        model: 'retired-model',
      }),
      quietH100,
    );
    expect(rec).toMatchObject({ kind: 'right-size', severity: 'info' });
    expect(rec.target).toBeUndefined();
    expect(rec.message).toMatch(/retired-model/);
  });

  it('does not right-size a busy service, nor one whose memory only fits its own slice', () => {
    const busy = run(service('dedicated', 'h100', 'production'), {
      utilisation: { value: 0.8, method: 'measured', confidence: 'high' },
      peakMemoryBytes: 9 * GB,
    });
    expect(busy).toEqual([]);
    const full = run(service('mig', 'a100-mig', 'production', '1g.10gb'), {
      utilisation: {
        value: 0.3,
        method: 'measured-mig-instance',
        confidence: 'high',
      },
      peakMemoryBytes: 9.2 * GB,
    });
    expect(full).toEqual([]);
  });

  it('moves a service above 95% of its memory up to the cheapest larger slice, at a cost', () => {
    const [rec] = run(service('mig', 'a100-mig', 'production', '1g.10gb'), {
      utilisation: {
        value: 0.7,
        method: 'measured-mig-instance',
        confidence: 'high',
      },
      peakMemoryBytes: 9.7 * GB,
    });
    // A whole L4 (24 GB, 0.8048/h) is cheaper than the next MIG profile (2g.20gb, 1344 / 5040 x 27.447 / 8 = 0.9149/h).
    expect(rec).toMatchObject({
      kind: 'move-up',
      severity: 'critical',
      target: { tier: 'dedicated', pool: 'l4-ondemand', gpuEquivalents: 1 },
    });
    expect(rec.monthlySavingMicros).toBeCloseTo(
      perMonth(((27.447 / 8) * 672) / 5040 - 0.8048),
      -1,
    );
  });

  it('flags a production GPU idle below 20% for 30 minutes, but not in dev', () => {
    const usage = {
      utilisation: {
        value: 0.5,
        method: 'measured' as const,
        confidence: 'high' as const,
      },
      recentPeakUtilisation: 0.1,
      peakMemoryBytes: 20 * GB,
    };
    const production = run(
      service('dedicated', 'l4-ondemand', 'production'),
      usage,
    );
    expect(production.map(r => r.kind)).toEqual(['idle']);
    expect(production[0].monthlySavingMicros).toBeCloseTo(
      perMonth(0.8048 * 0.5),
      -1,
    );
    expect(run(service('dedicated', 'l4-ondemand', 'dev'), usage)).toEqual([]);
  });

  it('proposes scale-to-zero when nothing was generated, running or waiting for an hour', () => {
    const quiet = { generatedTokens: 0, running: 0, waiting: 0 };
    const [rec] = run(service('dedicated', 'l4-ondemand', 'dev'), quiet);
    expect(rec).toMatchObject({
      kind: 'scale-to-zero',
      monthlySavingMicros: perMonth(0.8048),
    });
    expect(
      run(service('dedicated', 'l4-ondemand', 'dev'), quiet, 1800),
    ).toEqual([]);
    expect(
      run(service('dedicated', 'l4-ondemand', 'dev'), { ...quiet, waiting: 1 }),
    ).toEqual([]);
  });

  it('never proposes spot capacity to an on-demand service', () => {
    const [rec] = run(service('dedicated', 'h100', 'dev'), {
      utilisation: { value: 0.1, method: 'measured', confidence: 'high' },
      peakMemoryBytes: 3 * GB,
    });
    expect(rec.target?.pool).not.toBe('spot-l4');
  });

  describe('latency budget', () => {
    const busyShare = {
      utilisation: {
        value: 0.6,
        method: 'measured' as const,
        confidence: 'high' as const,
      },
      peakMemoryBytes: 2 * GB,
      generatedTokens: 50_000,
    };
    // Llama-3.2-3B in int4 at max-model-len 2048 fits a quarter of a T4 (4.3 GB) or of an L4 (6.4 GB), and MIG 1g.10gb.
    const small = {
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 2048,
    } as const;
    const timeSliced = () =>
      service('time-sliced', 't4-timeslice', 'dev', undefined, small);

    it('advises a time-sliced service over its budget up to the cheapest MIG slice the model fits, saying p95 vs budget', () => {
      const recs = run(withBudget(timeSliced(), 2), {
        ...busyShare,
        latency: { p50Seconds: 1.1, p95Seconds: 4.2 },
      });
      expect(recs).toHaveLength(1);
      const [rec] = recs;
      expect(rec).toMatchObject({
        kind: 'move-up',
        reason: 'latency-budget-broken',
        severity: 'warning',
        target: { tier: 'mig', pool: 'a100-mig', migProfile: '1g.10gb' },
        evidence: { latencyP95Seconds: 4.2, latencyBudgetP95Seconds: 2 },
      });
      expect(rec.message).toMatch(
        /^Measured p95 end-to-end latency 4\.2 s over the window is above the 2 s budget on a time-sliced share of t4-timeslice/,
      );
      expect(rec.message).toMatch(
        /MIG 1g\.10gb on a100-mig costs \$[\d,.]+ more per month\./,
      );
      // A quarter of a T4 against a 1g.10gb slice of the A100 pool: a cost, not a saving.
      expect(rec.monthlySavingMicros).toBeCloseTo(
        perMonth(0.526 / 4 - ((27.447 / 8) * 672) / 5040),
        -1,
      );
    });

    it('advises MPS up too, to the cheapest isolated slice: a whole L4 when it costs less than the MIG slice that fits', () => {
      // In bf16 the 8B's 16 GB of weights fit no 1g.10gb nor 2g.20gb slice; a whole L4 (0.8048/h) costs less than the
      // 3g.40gb (2016 / 5040 x 27.447 / 8 = 1.372/h).
      const mps = withBudget(service('mps', 'l4-mps', 'dev'), 1);
      const [rec] = run(mps, { ...busyShare, latency: { p95Seconds: 1.5 } });
      expect(rec).toMatchObject({
        kind: 'move-up',
        reason: 'latency-budget-broken',
        target: { tier: 'dedicated', pool: 'l4-ondemand', gpuEquivalents: 1 },
      });
      expect(rec.message).toMatch(
        /p95 end-to-end latency 1\.5 s over the window is above the 1 s budget on an MPS share of l4-mps/,
      );
      expect(rec.message).toMatch(/1 dedicated GPU on l4-ondemand costs/);
      // Where the environment allows no isolated tier, it says so, with no target.
      const sharedOnly = {
        ...platform,
        environments: platform.environments.map(e => ({
          ...e,
          allowedTiers: e.allowedTiers.filter(
            t => t === 'mps' || t === 'time-sliced',
          ),
        })),
      };
      const [none] = recommend({
        platform: sharedOnly,
        prices,
        service: mps,
        slice: serviceSlice(sharedOnly, mps),
        usage: { seriesCount: 1, ...busyShare, latency: { p95Seconds: 1.5 } },
        monthlyAllocationMicros: 1,
        windowSeconds: 86400,
      });
      expect(none).toMatchObject({
        kind: 'move-up',
        reason: 'latency-budget-broken',
        monthlySavingMicros: 0,
      });
      expect(none.target).toBeUndefined();
      expect(none.message).toMatch(
        /No MIG slice or dedicated GPU allowed in dev fits the model\.$/,
      );
    });

    it('advises nothing for latency within the budget, or not measured', () => {
      for (const latency of [{ p95Seconds: 1.4 }, { p95Seconds: 2 }, {}]) {
        expect(
          run(withBudget(timeSliced(), 2), { ...busyShare, latency }),
        ).toEqual([]);
      }
      expect(run(withBudget(timeSliced(), 2), busyShare)).toEqual([]);
    });

    it('one move-up for a shared service over its budget and out of memory, to a larger isolated slice', () => {
      const recs = run(
        withBudget(service('mps', 'l4-mps', 'dev', undefined, small), 2),
        {
          ...busyShare,
          // A quarter of an L4 is 6.4 GB.
          peakMemoryBytes: 6.2 * GB,
          latency: { p95Seconds: 3 },
        },
      );
      expect(recs).toHaveLength(1);
      expect(recs[0]).toMatchObject({
        kind: 'move-up',
        reason: 'latency-budget-broken',
        severity: 'critical',
        target: { tier: 'mig', migProfile: '1g.10gb' },
      });
      expect(recs[0].message).toMatch(
        /Peak memory 6\.2 GB of [\d.]+ GB per replica is also above 95%/,
      );
      // Without a budget it is the memory move-up, which may stay shared.
      const [memory] = run(service('mps', 'l4-mps', 'dev', undefined, small), {
        ...busyShare,
        peakMemoryBytes: 6.2 * GB,
        latency: { p95Seconds: 3 },
      });
      expect(memory).toMatchObject({
        kind: 'move-up',
        reason: 'memory-pressure',
      });
    });

    it('never advises an idle service over its budget down to a shared tier', () => {
      const idle = {
        utilisation: {
          value: 0.05,
          method: 'measured' as const,
          confidence: 'high' as const,
        },
        peakMemoryBytes: 2 * GB,
        generatedTokens: 200,
      };
      const dedicated = service(
        'dedicated',
        'l4-ondemand',
        'dev',
        undefined,
        small,
      );
      // Without a budget (or within it), the cheapest slice that fits is a share.
      const [shared] = run(dedicated, idle);
      expect(shared).toMatchObject({ kind: 'right-size' });
      expect(['mps', 'time-sliced']).toContain(shared.target?.tier);
      const [within] = run(withBudget(dedicated, 2), {
        ...idle,
        latency: { p95Seconds: 1 },
      });
      expect(within.target?.tier).toBe(shared.target?.tier);
      // Over it: an isolated slice or nothing, never a share.
      const over = run(withBudget(dedicated, 2), {
        ...idle,
        latency: { p95Seconds: 2.5 },
      });
      for (const rec of over) {
        expect(['mps', 'time-sliced']).not.toContain(rec.target?.tier);
      }
      expect(over[0]).toMatchObject({
        kind: 'right-size',
        target: { tier: 'mig', migProfile: '1g.10gb' },
      });
    });

    it('does not tell an idle production service over its budget to share its card', () => {
      const usage = {
        utilisation: {
          value: 0.5,
          method: 'measured' as const,
          confidence: 'high' as const,
        },
        recentPeakUtilisation: 0.1,
        peakMemoryBytes: 20 * GB,
      };
      const l4 = service('dedicated', 'l4-ondemand', 'production');
      expect(run(l4, usage)[0].message).toMatch(/share the card/);
      const [idle] = run(withBudget(l4, 2), {
        ...usage,
        latency: { p95Seconds: 3 },
      });
      expect(idle.kind).toBe('idle');
      expect(idle.message).not.toMatch(/share the card/);
      expect(idle.message).toMatch(
        /not a shared tier: its p95 latency is over its budget/,
      );
    });
  });

  describe('MPS or time-slicing, from the measured traffic', () => {
    // Llama-3.2-3B in int4 at max-model-len 2048 fits a quarter of a T4 (4.3 GB) and of an L4 (6.4 GB).
    const small = {
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 2048,
    } as const;
    const mps = (environment = 'dev') =>
      service('mps', 'l4-mps', environment, undefined, small);
    const timeSliced = () =>
      service('time-sliced', 't4-timeslice', 'dev', undefined, small);
    /** The utilisation of a step, of the share held, at each of the window's 15-minute steps. */
    const steps = (values: number[]) =>
      values.map((value, i) => ({ timestamp: i * 900_000, value }));
    /** 96 steps: busy for one hour (4 steps) in every four, near idle otherwise. */
    const burstySteps = steps(
      Array.from({ length: 96 }, (_, i) => (i % 16 < 4 ? 1 : 0.02)),
    );
    const steadySteps = steps(
      Array.from({ length: 96 }, (_, i) => 0.8 + (i % 2) * 0.1),
    );
    const measuredBy = (values: Array<{ value: number }>) => ({
      value: values.reduce((t, p) => t + p.value, 0) / values.length,
      method: 'apportioned-by-tokens' as const,
      confidence: 'medium' as const,
    });
    const bursty = {
      utilisation: measuredBy(burstySteps),
      utilisationSeries: burstySteps,
      runningWhileServing: 1,
      peakMemoryBytes: 2 * GB,
      generatedTokens: 40_000,
    };
    const steady = {
      utilisation: measuredBy(steadySteps),
      utilisationSeries: steadySteps,
      runningWhileServing: 6,
      peakMemoryBytes: 2 * GB,
      generatedTokens: 900_000,
    };

    it('advises a bursty service on MPS to time-slicing, with the measured figures and the saving', () => {
      const recs = run(mps(), bursty);
      // The right-size to the same cheaper time-sliced share is the same move: only the switch, with its reason.
      expect(recs.map(r => r.kind)).toEqual(['switch-sharing']);
      const [rec] = recs;
      expect(rec).toMatchObject({
        kind: 'switch-sharing',
        reason: 'bursty-traffic',
        severity: 'info',
        title: 'Bursty traffic: time-slicing fits it better than MPS',
        target: {
          tier: 'time-sliced',
          pool: 't4-timeslice',
          gpuEquivalents: 0.25,
        },
        evidence: {
          measuredSteps: 96,
          idleStepShare: 0.75,
          peakStepUtilisation: 1,
          runningRequestsWhileServing: 1,
        },
      });
      expect(rec.evidence.meanStepUtilisation).toBeCloseTo(0.265, 6);
      expect(rec.monthlySavingMicros).toBeCloseTo(
        perMonth(0.8048 / 4 - 0.526 / 4),
        -1,
      );
      expect(rec.message).toMatch(
        /^Near idle \(below 10% of its share\) at 75% of the 96 steps measured, its busiest step at 100% of its share, 1\.0 requests running at once while it served: under MPS each burst gets 1\/4 of the GPU's threads, while time-slicing gives a pod the whole GPU in its turn\. A time-sliced share of t4-timeslice costs \$[\d.,]+ less per month\./,
      );
      expect(rec.message).toMatch(/isolates neither memory nor faults/);
    });

    it('advises a steady concurrent service on time-slicing to MPS, saying what it costs', () => {
      const recs = run(timeSliced(), steady);
      expect(recs).toHaveLength(1);
      const [rec] = recs;
      expect(rec).toMatchObject({
        kind: 'switch-sharing',
        reason: 'steady-concurrent-traffic',
        title:
          'Steady concurrent traffic: MPS fits it better than time-slicing',
        target: { tier: 'mps', pool: 'l4-mps', gpuEquivalents: 0.25 },
        evidence: {
          measuredSteps: 96,
          idleStepShare: 0,
          peakStepUtilisation: 0.9,
          runningRequestsWhileServing: 6,
        },
      });
      // A quarter of an L4 costs more than a quarter of a T4.
      expect(rec.monthlySavingMicros).toBeCloseTo(
        perMonth(0.526 / 4 - 0.8048 / 4),
        -1,
      );
      expect(rec.message).toMatch(
        /^Busy at 100% of the 96 steps measured, steadily \(mean 85% of its share, busiest step 90%\), 6\.0 requests running at once while it served: time-slicing switches the GPU between the pods sharing it, one at a time, while MPS runs their kernels concurrently\. An MPS share of l4-mps costs \$[\d.,]+ more per month\./,
      );
      expect(rec.message).toMatch(/a pod that faults can affect the others/);
    });

    it('leaves a service on the mode its traffic already suits, and mixed traffic alone', () => {
      expect(run(timeSliced(), bursty)).not.toContainEqual(
        expect.objectContaining({ kind: 'switch-sharing' }),
      );
      expect(run(mps(), steady)).toEqual([]);
      // Busy most of the time but one request at a time: neither clearly bursty nor concurrent.
      expect(run(timeSliced(), { ...steady, runningWhileServing: 1 })).toEqual(
        [],
      );
      // Bursty, but several requests at once in each burst.
      expect(
        run(mps(), { ...bursty, runningWhileServing: 4 }).map(r => r.kind),
      ).not.toContain('switch-sharing');
      // Near idle half the time but its bursts never fill its share.
      const light = steps(
        Array.from({ length: 96 }, (_, i) => (i % 2 ? 0.4 : 0.01)),
      );
      expect(
        run(mps(), {
          ...bursty,
          utilisation: measuredBy(light),
          utilisationSeries: light,
        }).map(r => r.kind),
      ).not.toContain('switch-sharing');
    });

    it('advises nothing when a figure is missing', () => {
      const { runningWhileServing: _running, ...noGauge } = steady;
      const { utilisationSeries: _series, ...noSteps } = steady;
      for (const usage of [
        // No running-requests gauge (Ollama, or no request ran).
        noGauge,
        // No step series.
        noSteps,
        // Too few steps to judge.
        { ...steady, utilisationSeries: steadySteps.slice(0, 11) },
        // The device's busy time split evenly: the steps are not the service's own.
        {
          ...steady,
          utilisation: {
            ...steady.utilisation,
            method: 'apportioned-evenly' as const,
          },
        },
        // No utilisation at all.
        { ...steady, utilisation: undefined },
      ]) {
        expect(run(timeSliced(), usage)).toEqual([]);
      }
    });

    it('wants a stated budget measured, with room to spare, before advising MPS', () => {
      const within = run(withBudget(timeSliced(), 2), {
        ...steady,
        latency: { p95Seconds: 1.2 },
      });
      expect(within).toHaveLength(1);
      expect(within[0]).toMatchObject({
        reason: 'steady-concurrent-traffic',
        evidence: { latencyP95Seconds: 1.2, latencyBudgetP95Seconds: 2 },
      });
      expect(within[0].message).toMatch(
        /Measured p95 1\.2 s leaves room within the 2 s budget\.$/,
      );
      // Within the budget but close to it (MPS slows a single request down), or not measured: nothing.
      for (const latency of [{ p95Seconds: 1.8 }, {}]) {
        expect(
          run(withBudget(timeSliced(), 2), { ...steady, latency }),
        ).toEqual([]);
      }
      // Over it: the move-up to an isolated slice, never a switch to the other share.
      const over = run(withBudget(mps(), 2), {
        ...bursty,
        latency: { p95Seconds: 3 },
      });
      expect(over.map(r => r.kind)).toEqual(['move-up']);
    });

    it('is not offered where the environment allows no pool of the other tier, or none holds it', () => {
      // Staging allows MPS but not time-slicing.
      expect(run(mps('staging'), bursty).map(r => r.kind)).not.toContain(
        'switch-sharing',
      );
      // No time-sliced pool at all.
      const noTimeSlicing = {
        ...platform,
        pools: platform.pools.filter(p => p.name !== 't4-timeslice'),
      };
      const s = mps();
      expect(
        recommend({
          platform: noTimeSlicing,
          prices,
          service: s,
          slice: serviceSlice(noTimeSlicing, s),
          usage: { seriesCount: 1, ...bursty },
          monthlyAllocationMicros: 1,
          windowSeconds: 86400,
        }).map(r => r.kind),
      ).not.toContain('switch-sharing');
      // Its measured peak memory (x 1.1) does not fit a quarter of a T4.
      expect(
        run(mps(), { ...bursty, peakMemoryBytes: 4.2 * GB }).map(r => r.kind),
      ).not.toContain('switch-sharing');
      // Out of memory on its share: the move-up alone.
      expect(
        run(mps(), { ...bursty, peakMemoryBytes: 6.2 * GB }).map(r => r.kind),
      ).toEqual(['move-up']);
    });
  });
});
