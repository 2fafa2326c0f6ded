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
});
