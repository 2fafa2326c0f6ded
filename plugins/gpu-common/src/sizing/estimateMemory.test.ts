import fc from 'fast-check';
import { availableDtypes } from '../platform/checkpoints';
import { defaultModels } from '../platform/defaultModels';
import { Dtype } from '../platform/types';
import { estimateMemory, kvCacheBytesPerToken } from './estimateMemory';
import { GB, GIB } from './units';

const llama8b = defaultModels['llama-3.1-8b'];

describe('estimateMemory', () => {
  it("sizes Llama-3.1-8B weights by the bytes of each dtype's checkpoint", () => {
    const weights = (dtype: Dtype, runtime: 'vllm' | 'ollama' = 'vllm') =>
      estimateMemory(llama8b, {
        dtype,
        maxModelLen: 1,
        concurrency: 1,
        runtime,
      }).weightsBytes;
    // vLLM: the base repository in bf16/fp16, 8.03 B x 2 bytes.
    expect(weights('bf16')).toBeCloseTo(16.06e9, -6);
    expect(weights('fp16')).toBe(weights('bf16'));
    // fp8 on load and int8 w8a8: 6.98 B linear weights x 1 byte + 1.05 B embedding and head parameters x 2 bytes.
    expect(weights('fp8')).toBeCloseTo(6.98e9 + 2.1e9, -6);
    expect(weights('int8')).toBeCloseTo(6.98e9 + 2.1e9, -6);
    // AWQ int4: 6.98 B x (0.5 + 2.5 / 128) + 2.1 GB = 3.6263 + 2.1 GB (the repository holds 5.73 GB).
    expect(weights('int4')).toBeCloseTo(6.98e9 * 0.51953125 + 2.1e9, -6);
    // Ollama GGUF: fp16 8.03 B x 2, q8_0 x 34/32, q4_K_M x 4.85/8 (llama3.1:8b-instruct-q4_K_M is 4.9 GB).
    expect(weights('fp16', 'ollama')).toBeCloseTo(16.06e9, -6);
    expect(weights('int8', 'ollama')).toBeCloseTo(8.531875e9, -6);
    expect(weights('int4', 'ollama')).toBeCloseTo(4.8681875e9, -6);
  });

  it('refuses a dtype the catalogue names no checkpoint of, naming the available ones', () => {
    const opts = { maxModelLen: 1, concurrency: 1 };
    expect(() =>
      estimateMemory(defaultModels['mistral-7b'], {
        ...opts,
        dtype: 'int4',
        runtime: 'vllm',
      }),
    ).toThrow(
      'The model catalogue names no int4 Hugging Face checkpoint of mistral-7b for vllm; available: bf16, fp16 or fp8',
    );
    expect(() =>
      estimateMemory(llama8b, { ...opts, dtype: 'bf16', runtime: 'ollama' }),
    ).toThrow(
      'The model catalogue names no bf16 Ollama tag of llama-3.1-8b for ollama; available: fp16, int8 or int4',
    );
  });

  it("takes fp16 for Ollama, which has no bf16 tags, when the model's default is bf16", () => {
    const opts = {
      maxModelLen: 4096,
      concurrency: 2,
      runtime: 'ollama' as const,
    };
    expect(estimateMemory(llama8b, opts)).toEqual(
      estimateMemory(llama8b, { ...opts, dtype: 'fp16' }),
    );
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
  /** A model and a dtype vLLM has a checkpoint of. */
  const arbitraryModelAndDtype = arbitraryModel.chain(model =>
    fc.tuple(
      fc.constant(model),
      fc.constantFrom(...availableDtypes(model, 'vllm')),
    ),
  );

  it('grows monotonically with max-model-len and concurrency', () => {
    fc.assert(
      fc.property(
        arbitraryModelAndDtype,
        fc.integer({ min: 1, max: 131072 }),
        fc.integer({ min: 1, max: 131072 }),
        fc.integer({ min: 1, max: 1024 }),
        fc.integer({ min: 1, max: 1024 }),
        ([model, dtype], len1, len2, c1, c2) => {
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

  it('orders weights int4 < fp8 < bf16 on vLLM and int4 < int8 < fp16 on Ollama for every model', () => {
    fc.assert(
      fc.property(arbitraryModel, model => {
        const weights = (dtype: Dtype, runtime: 'vllm' | 'ollama') =>
          estimateMemory(model, {
            dtype,
            maxModelLen: 1,
            concurrency: 1,
            runtime,
          }).weightsBytes;
        // Mistral-7B and Phi-3-mini have no vLLM int4: compare fp8 with itself there.
        const smallest = availableDtypes(model, 'vllm').includes('int4')
          ? 'int4'
          : 'fp8';
        expect(weights(smallest, 'vllm')).toBeLessThanOrEqual(
          weights('fp8', 'vllm'),
        );
        expect(weights('fp8', 'vllm')).toBeLessThan(weights('bf16', 'vllm'));
        expect(weights('int4', 'ollama')).toBeLessThan(
          weights('int8', 'ollama'),
        );
        expect(weights('int8', 'ollama')).toBeLessThan(
          weights('fp16', 'ollama'),
        );
      }),
    );
  });
});
