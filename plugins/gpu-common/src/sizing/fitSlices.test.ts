import fc from 'fast-check';
import { checkpointFor } from '../platform/checkpoints';
import { GpuDomainError } from '../errors';
import { defaultModels } from '../platform/defaultModels';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { ServiceRequest } from '../service/types';
import { fitSlices, requireFittingSlices } from './fitSlices';
import { GB } from './units';

const platform = parsePlatform(demoPlatformConfig);

/** The report summariser. */
const summariser: ServiceRequest = {
  name: 'summariser',
  team: 'search',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 1,
  environment: 'production',
};

describe('fitSlices', () => {
  it('the report summariser fits a dedicated L4 with about 6 GB left for KV cache', () => {
    const [result] = fitSlices(platform, {
      ...summariser,
      tier: 'dedicated',
      pool: 'l4-ondemand',
    });
    expect(result.slice).toMatchObject({
      pool: 'l4-ondemand',
      gpuMemoryUtilization: 0.9,
    });
    expect(result.fits).toBe(true);
    expect(result.reason).toBeUndefined();
    expect(result.kvCacheBudgetBytes).toBeGreaterThan(5.5 * GB);
    expect(result.kvCacheBudgetBytes).toBeLessThan(6.5 * GB);
    expect(result.fullLengthSequences).toBe(5);
    expect(result.headroomBytes).toBe(
      result.availableBytes - result.requiredBytes,
    );
  });

  it('says why a slice is too small', () => {
    const results = fitSlices(platform, { ...summariser, pool: 'a100-mig' });
    expect(results.map(r => [r.slice.migProfile, r.fits])).toEqual([
      ['1g.10gb', false],
      ['2g.20gb', false],
      ['3g.40gb', true],
    ]);
    expect(results[1].reason).toBe(
      'needs 18.2 GB but a 2g.20gb MIG slice of an A100-80GB gives 18.0 GB',
    );
    expect(results[0].reason).toBe(
      'needs 18.2 GB but a 1g.10gb MIG slice of an A100-80GB gives 9.0 GB',
    );
    expect(results[0].headroomBytes).toBeLessThan(0);
  });

  it('fits against the share of the card on MPS and time-sliced pools', () => {
    const [big] = fitSlices(platform, { ...summariser, pool: 'l4-mps' });
    expect(big.fits).toBe(false);
    expect(big.reason).toMatch(/but a 1\/4 MPS share of an L4 gives 5\.7 GB$/);
    const [small] = fitSlices(platform, {
      ...summariser,
      model: 'llama-3.2-3b',
      dtype: 'int4',
      maxModelLen: 4096,
      pool: 'l4-mps',
    });
    expect(small.fits).toBe(true);
    expect(small.availableBytes).toBeLessThanOrEqual(small.slice.memoryBytes);
  });

  it('filters by tier and pool and covers every slice otherwise', () => {
    expect(fitSlices(platform, summariser)).toHaveLength(1 + 1 + 3 + 1 + 1 + 4);
    const mig = fitSlices(platform, { ...summariser, tier: 'mig' });
    expect(new Set(mig.map(r => r.slice.pool))).toEqual(new Set(['a100-mig']));
    expect(
      fitSlices(platform, { ...summariser, tier: 'mig', pool: 'h100' }),
    ).toEqual([]);
  });

  it('spreads a 70B model over tensor-parallel H100s for vLLM', () => {
    const results = fitSlices(platform, {
      ...summariser,
      model: 'llama-3.1-70b',
      pool: 'h100',
    });
    expect(results.map(r => [r.slice.gpusPerReplica, r.fits])).toEqual([
      [1, false],
      [2, true],
      [4, true],
      [8, true],
    ]);
  });

  it('gives Ollama single-GPU slices only and needs every parallel context resident', () => {
    const ollama = {
      ...summariser,
      runtime: 'ollama' as const,
      dtype: 'fp16' as const,
      pool: 'l4-ondemand',
    };
    const h100 = fitSlices(platform, { ...ollama, pool: 'h100' });
    expect(h100.map(r => r.slice.gpusPerReplica)).toEqual([1]);
    const [four] = fitSlices(platform, { ...ollama, concurrency: 4 });
    const [eight] = fitSlices(platform, { ...ollama, concurrency: 8 });
    expect(four.fits).toBe(true);
    expect(four.requiredBytes).toBe(four.memory.totalBytes);
    expect(eight.fits).toBe(false);
  });

  it('rejects unknown models and pools', () => {
    expect(() =>
      fitSlices(platform, { ...summariser, model: 'gpt-5' }),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_MODEL' }));
    expect(() => fitSlices(platform, { ...summariser, pool: 'tpu' })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_POOL' }),
    );
  });

  it('fits exactly when the headroom is not negative, and keeps fitting as max-model-len shrinks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(defaultModels)),
        fc.constantFrom('vllm' as const, 'ollama' as const),
        fc.constantFrom('fp16' as const, 'int8' as const, 'int4' as const),
        fc.integer({ min: 1, max: 32768 }),
        fc.integer({ min: 1, max: 64 }),
        (model, runtime, dtype, maxModelLen, concurrency) => {
          if (!checkpointFor(defaultModels[model], dtype, runtime)) return;
          const request = {
            ...summariser,
            model,
            runtime,
            dtype,
            maxModelLen,
            concurrency,
          };
          const long = fitSlices(platform, request);
          const short = fitSlices(platform, {
            ...request,
            maxModelLen: Math.ceil(maxModelLen / 2),
          });
          long.forEach((result, i) => {
            expect(result.fits).toBe(result.headroomBytes >= 0);
            expect(result.fits).toBe(result.reason === undefined);
            expect(!result.fits || short[i].fits).toBe(true);
          });
        },
      ),
    );
  });
});

describe('requireFittingSlices', () => {
  it('returns only the slices that fit', () => {
    const fitting = requireFittingSlices(platform, {
      ...summariser,
      dtype: 'fp8',
      pool: 'a100-mig',
    });
    expect(fitting.map(r => r.slice.migProfile)).toEqual([
      '2g.20gb',
      '3g.40gb',
    ]);
  });

  it('throws NO_FIT naming the closest slices', () => {
    let error: GpuDomainError | undefined;
    try {
      requireFittingSlices(platform, {
        ...summariser,
        model: 'llama-3.1-70b',
        pool: 'l4-ondemand',
      });
    } catch (e) {
      error = e as GpuDomainError;
    }
    expect(error).toBeInstanceOf(GpuDomainError);
    expect(error!.code).toBe('NO_FIT');
    expect(error!.message).toMatch(
      /^llama-3\.1-70b in bf16 with max-model-len 8192 fits no slice of pool l4-ondemand: needs 148\.7 GB but 1 x L4 gives 23\.2 GB\. Allowed: a smaller dtype/,
    );
  });
});
