import fc from 'fast-check';
import { defaultModels } from '../platform/defaultModels';
import { Dtype } from '../platform/types';
import { estimateMemory, kvCacheBytesPerToken } from './estimateMemory';
import { GB, GIB } from './units';

const llama8b = defaultModels['llama-3.1-8b'];

describe('estimateMemory', () => {
  it('sizes Llama-3.1-8B weights by dtype', () => {
    const weights = (dtype: Dtype) =>
      estimateMemory(llama8b, {
        dtype,
        maxModelLen: 1,
        concurrency: 1,
        runtime: 'vllm',
      }).weightsBytes;
    expect(weights('bf16')).toBeCloseTo(16.06e9, -6);
    expect(weights('fp16')).toBe(weights('bf16'));
    expect(weights('fp32')).toBeCloseTo(32.12e9, -6);
    expect(weights('fp8')).toBeCloseTo(8.03e9, -6);
    expect(weights('int8')).toBeCloseTo(8.03e9 * 1.05, -6);
    expect(weights('int4')).toBeCloseTo(4.015e9 * 1.05, -6);
  });

  it('uses the model default dtype when none is given', () => {
    const opts = {
      maxModelLen: 4096,
      concurrency: 2,
      runtime: 'vllm' as const,
    };
    expect(estimateMemory(llama8b, opts)).toEqual(
      estimateMemory(llama8b, { ...opts, dtype: 'bf16' }),
    );
  });

  it('computes 128 KiB of KV cache per token for Llama-3.1-8B and 320 KiB for 70B', () => {
    expect(kvCacheBytesPerToken(llama8b)).toBe(131072);
    expect(kvCacheBytesPerToken(defaultModels['llama-3.1-70b'])).toBe(327680);
    expect(kvCacheBytesPerToken(llama8b, 'fp8')).toBe(65536);
    expect(kvCacheBytesPerToken(llama8b, 'int4')).toBe(131072);
  });

  it('multiplies the KV cache by max-model-len and concurrency', () => {
    const memory = estimateMemory(llama8b, {
      maxModelLen: 8192,
      concurrency: 64,
      runtime: 'vllm',
    });
    expect(memory.kvCacheBytes).toBe(131072 * 8192 * 64);
    expect(memory.totalBytes).toBe(
      memory.weightsBytes + memory.kvCacheBytes + memory.overheadBytes,
    );
  });

  it('the report summariser: Llama-3.1-8B bf16 on an L4 at 0.90 leaves about 6 GB for KV cache', () => {
    const memory = estimateMemory(llama8b, {
      dtype: 'bf16',
      maxModelLen: 8192,
      concurrency: 64,
      runtime: 'vllm',
    });
    const kvBudget =
      24 * GIB * 0.9 - memory.weightsBytes - memory.overheadBytes;
    expect(kvBudget).toBeGreaterThan(5.5 * GB);
    expect(kvBudget).toBeLessThan(6.5 * GB);
  });

  it('adds a CUDA context per GPU of the replica', () => {
    const opts = {
      maxModelLen: 1024,
      concurrency: 1,
      runtime: 'vllm' as const,
    };
    const one = estimateMemory(llama8b, opts);
    const four = estimateMemory(llama8b, { ...opts, gpusPerReplica: 4 });
    expect(four.overheadBytes - one.overheadBytes).toBe(3 * 0.5 * GIB);
    expect(four.weightsBytes).toBe(one.weightsBytes);
  });

  const models = Object.values(defaultModels);
  const arbitraryModel = fc.constantFrom(...models);
  const arbitraryDtype = fc.constantFrom<Dtype>(
    'fp32',
    'bf16',
    'fp16',
    'fp8',
    'int8',
    'int4',
  );

  it('grows monotonically with max-model-len and concurrency', () => {
    fc.assert(
      fc.property(
        arbitraryModel,
        arbitraryDtype,
        fc.integer({ min: 1, max: 131072 }),
        fc.integer({ min: 1, max: 131072 }),
        fc.integer({ min: 1, max: 1024 }),
        fc.integer({ min: 1, max: 1024 }),
        (model, dtype, len1, len2, c1, c2) => {
          const at = (maxModelLen: number, concurrency: number) =>
            estimateMemory(model, {
              dtype,
              maxModelLen,
              concurrency,
              runtime: 'vllm',
            }).totalBytes;
          const [shortLen, longLen] = [
            Math.min(len1, len2),
            Math.max(len1, len2),
          ];
          const [few, many] = [Math.min(c1, c2), Math.max(c1, c2)];
          expect(at(shortLen, few)).toBeLessThanOrEqual(at(longLen, few));
          expect(at(shortLen, few)).toBeLessThanOrEqual(at(shortLen, many));
          expect(at(shortLen, few) < at(longLen, few)).toBe(len1 !== len2);
          expect(at(shortLen, few) < at(shortLen, many)).toBe(c1 !== c2);
        },
      ),
    );
  });

  it('orders weights int4 < fp8 < bf16 < fp32 for every model', () => {
    fc.assert(
      fc.property(arbitraryModel, model => {
        const weights = (dtype: Dtype) =>
          estimateMemory(model, {
            dtype,
            maxModelLen: 1,
            concurrency: 1,
            runtime: 'ollama',
          }).weightsBytes;
        expect(weights('int4')).toBeLessThan(weights('fp8'));
        expect(weights('fp8')).toBeLessThan(weights('bf16'));
        expect(weights('bf16')).toBeLessThan(weights('fp32'));
      }),
    );
  });
});
