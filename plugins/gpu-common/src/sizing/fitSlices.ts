import { GpuDomainError } from '../errors';
import { defaultDtypeFor } from '../platform/checkpoints';
import { findModel, findPool } from '../platform/lookups';
import { ModelSpec, Platform } from '../platform/types';
import { ServiceRequest } from '../service/types';
import { describeSlice } from '../tiers/describeSlice';
import { slicesFor } from '../tiers/slicesFor';
import { Slice } from '../tiers/types';
import { estimateMemory, kvCacheBytesPerToken } from './estimateMemory';
import { MemoryEstimate } from './types';
import { formatGb } from './units';

/**
 * Whether one replica of a service fits one slice.
 *
 * @public
 */
export interface FitResult {
  slice: Slice;
  /** Memory at the requested concurrency, with the slice's GPU count (CUDA context per GPU). */
  memory: MemoryEstimate;
  /** What the runtime may allocate: device memory x `--gpu-memory-utilization`. */
  availableBytes: number;
  /**
   * What must be resident for the replica to start. vLLM: weights + overhead + KV cache for one full-length
   * sequence (PagedAttention fills the rest of its budget on demand). Ollama: the whole estimate (llama.cpp
   * allocates the cache for every parallel context up front).
   */
  requiredBytes: number;
  /** `availableBytes - requiredBytes`; negative when the replica does not fit. */
  headroomBytes: number;
  /** Memory left for KV cache after weights and overhead (never negative). */
  kvCacheBudgetBytes: number;
  /**
   * Full-length (`maxModelLen`) sequences the KV budget holds at once: `kvCacheBudgetBytes` / KV bytes of one
   * sequence of `maxModelLen` tokens, rounded down. Below the request's `concurrentSequences` the slice does not fit.
   */
  fullLengthSequences: number;
  fits: boolean;
  /** Why it does not fit, e.g. `needs 17.9 GB but a 1g.10gb MIG slice of an A100-80GB gives 9.0 GB`. */
  reason?: string;
}

/**
 * Fits one replica of `request` against every slice of every pool (only `request.pool` and `request.tier` when
 * given). Ollama has no tensor parallelism, so only single-GPU slices are considered for it. Policy (environment
 * tiers, quota) is not checked here.
 *
 * @throws GpuDomainError `UNKNOWN_MODEL` or `UNKNOWN_POOL` for names the platform does not have.
 * @public
 */
export function fitSlices(
  platform: Platform,
  request: ServiceRequest,
): FitResult[] {
  const model = findModel(platform, request.model);
  const sized = {
    ...request,
    dtype: request.dtype ?? defaultDtypeFor(model, request.runtime),
  };
  const pools = request.pool
    ? [findPool(platform, request.pool)]
    : platform.pools;
  return pools.flatMap(pool =>
    slicesFor(platform, pool)
      .filter(slice => !request.tier || slice.tier === request.tier)
      .filter(
        slice => request.runtime !== 'ollama' || slice.gpusPerReplica === 1,
      )
      .map(slice => fitSlice(model, sized, slice)),
  );
}

/**
 * Like {@link fitSlices}, but returns only the slices that fit and throws when none does.
 *
 * @throws GpuDomainError `NO_FIT` naming the closest slices and what each lacks.
 * @public
 */
export function requireFittingSlices(
  platform: Platform,
  request: ServiceRequest,
): FitResult[] {
  const results = fitSlices(platform, request);
  const fitting = results.filter(r => r.fits);
  if (fitting.length > 0) {
    return fitting;
  }
  const model = findModel(platform, request.model);
  const dtype = request.dtype ?? defaultDtypeFor(model, request.runtime);
  const where = [
    request.tier ? `tier ${request.tier}` : undefined,
    request.pool ? `pool ${request.pool}` : undefined,
  ].filter(Boolean);
  const closest = [...results]
    .sort((a, b) => b.headroomBytes - a.headroomBytes)
    .slice(0, 3)
    .map(r => r.reason);
  throw new GpuDomainError(
    'NO_FIT',
    `${request.model} in ${dtype} with max-model-len ${
      request.maxModelLen
    } fits no slice${where.length ? ` of ${where.join(' and ')}` : ''}${
      closest.length
        ? `: ${closest.join('; ')}`
        : ': no pool offers such a slice'
    }. Allowed: a smaller dtype (fp8, int4), a shorter max-model-len, fewer concurrent sequences, or a larger tier or pool`,
  );
}

function fitSlice(
  model: ModelSpec,
  request: ServiceRequest,
  slice: Slice,
): FitResult {
  const memory = estimateMemory(model, {
    dtype: request.dtype,
    maxModelLen: request.maxModelLen,
    concurrency: request.concurrency,
    runtime: request.runtime,
    gpusPerReplica: slice.gpusPerReplica,
  });
  const sequenceBytes =
    kvCacheBytesPerToken(model, request.dtype) * request.maxModelLen;
  const requiredBytes =
    request.runtime === 'vllm'
      ? memory.weightsBytes + memory.overheadBytes + sequenceBytes
      : memory.totalBytes;
  const availableBytes = slice.deviceMemoryBytes * slice.gpuMemoryUtilization;
  const kvCacheBudgetBytes = Math.max(
    0,
    availableBytes - memory.weightsBytes - memory.overheadBytes,
  );
  const memoryFits = requiredBytes <= availableBytes;
  const fullLengthSequences = Math.floor(kvCacheBudgetBytes / sequenceBytes);
  const wanted = request.concurrentSequences;
  const sequencesFit = wanted === undefined || fullLengthSequences >= wanted;
  let reason: string | undefined;
  if (!memoryFits) {
    reason = `needs ${formatGb(requiredBytes)} but ${describeSlice(
      slice,
    )} gives ${formatGb(availableBytes)}`;
  } else if (!sequencesFit) {
    reason = `${describeSlice(slice)} holds ${fullLengthSequences} sequence${
      fullLengthSequences === 1 ? '' : 's'
    } of ${request.maxModelLen} tokens at once (${formatGb(
      kvCacheBudgetBytes,
    )} of KV cache, ${formatGb(sequenceBytes)} each); ${wanted} are requested`;
  }
  return {
    slice,
    memory,
    availableBytes,
    requiredBytes,
    headroomBytes: availableBytes - requiredBytes,
    kvCacheBudgetBytes,
    fullLengthSequences,
    fits: memoryFits && sequencesFit,
    reason,
  };
}
