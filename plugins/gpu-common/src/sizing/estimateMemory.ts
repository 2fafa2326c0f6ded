import { defaultDtypeFor, requireCheckpoint } from '../platform/checkpoints';
import { Dtype, ModelSpec, Runtime } from '../platform/types';
import { checkpointWeightsBytes } from './checkpointBytes';
import { MemoryEstimate } from './types';
import { GIB } from './units';

/**
 * Bytes per KV-cache element. The runtimes keep the cache in the activation dtype: fp16/bf16 for fp16, bf16 and
 * weight-only int8/int4 quantisation, fp8 for fp8 models, fp32 for fp32 models.
 *
 * @public
 */
export const KV_CACHE_BYTES: Readonly<Record<Dtype, number>> = {
  fp32: 4,
  bf16: 2,
  fp16: 2,
  fp8: 1,
  int8: 2,
  int4: 2,
};

/**
 * CUDA context, cuBLAS/NCCL workspaces and other non-PyTorch memory each GPU of a replica holds: 512 MiB.
 *
 * @public
 */
export const CUDA_CONTEXT_BYTES_PER_GPU = 0.5 * GIB;

/**
 * Peak activation memory as a fraction of the weights (vLLM's profiling forward pass, llama.cpp's compute graph):
 * 3%, and never less than {@link MIN_ACTIVATION_BYTES}. For Llama-3.1-8B in bf16 this gives 0.48 GB, close to what
 * vLLM reports at its default batch of 2,048-8,192 tokens.
 *
 * @public
 */
export const ACTIVATION_FRACTION_OF_WEIGHTS = 0.03;

/**
 * Floor of the activation estimate: 256 MiB.
 *
 * @public
 */
export const MIN_ACTIVATION_BYTES = 0.25 * GIB;

/**
 * Options of {@link estimateMemory}.
 *
 * @public
 */
export interface EstimateMemoryOptions {
  /** Weight dtype; the runtime's default for the model (`defaultDtypeFor`) when absent. */
  dtype?: Dtype;
  /** Tokens per sequence (vLLM `--max-model-len`, Ollama context length). */
  maxModelLen: number;
  /** Sequences held at once (vLLM `--max-num-seqs`, `OLLAMA_NUM_PARALLEL`). */
  concurrency: number;
  runtime: Runtime;
  /** GPUs one replica spans (tensor parallel size); each holds its own CUDA context. Default 1. */
  gpusPerReplica?: number;
}

/**
 * KV-cache bytes one token takes: 2 (K and V) x layers x KV heads x head dim x bytes per element.
 * Llama-3.1-8B in bf16: 131,072 B (128 KiB).
 *
 * @public
 */
export function kvCacheBytesPerToken(model: ModelSpec, dtype?: Dtype): number {
  const kvBytes = KV_CACHE_BYTES[dtype ?? model.defaultDtype];
  return 2 * model.layers * model.kvHeads * model.headDim * kvBytes;
}

/**
 * Memory one replica of `model` needs: weights (the bytes of the checkpoint the runtime loads in the dtype, see
 * `checkpointWeightsBytes`), KV cache for `concurrency`
 * sequences of `maxModelLen` tokens, and overhead (CUDA context per GPU plus peak activations). The runtime does not
 * change the arithmetic: vLLM and llama.cpp (Ollama) keep the same weights and cache; how much of the cache must be
 * resident is decided by the fit (see `fitSlices`).
 *
 * @throws GpuDomainError `OUT_OF_RANGE` when the catalogue names no checkpoint of the model in the dtype for the
 *   runtime.
 * @public
 */
export function estimateMemory(
  model: ModelSpec,
  opts: EstimateMemoryOptions,
): MemoryEstimate {
  const dtype = opts.dtype ?? defaultDtypeFor(model, opts.runtime);
  const gpus = opts.gpusPerReplica ?? 1;
  const weightsBytes = checkpointWeightsBytes(
    model,
    dtype,
    requireCheckpoint(model, dtype, opts.runtime),
  );
  const kvCacheBytes =
    kvCacheBytesPerToken(model, dtype) * opts.maxModelLen * opts.concurrency;
  const activationBytes = Math.max(
    MIN_ACTIVATION_BYTES,
    weightsBytes * ACTIVATION_FRACTION_OF_WEIGHTS,
  );
  const overheadBytes = gpus * CUDA_CONTEXT_BYTES_PER_GPU + activationBytes;
  return {
    weightsBytes,
    kvCacheBytes,
    overheadBytes,
    totalBytes: weightsBytes + kvCacheBytes + overheadBytes,
  };
}
