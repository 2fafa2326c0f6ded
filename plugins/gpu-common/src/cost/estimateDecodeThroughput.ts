import {
  ASSUMED_AVERAGE_CONTEXT_TOKENS,
  DECODE_BANDWIDTH_EFFICIENCY,
  GPU_MEMORY_BANDWIDTH_GBPS,
} from './throughputAssumptions';

/**
 * What the decode-throughput estimate needs to know of one replica.
 *
 * @public
 */
export interface DecodeThroughputInput {
  /** GPU catalogue name, a key of {@link GPU_MEMORY_BANDWIDTH_GBPS}. */
  gpuModel: string;
  /**
   * Cards' worth of memory bandwidth the replica reads through (`sliceBandwidthShare`): whole GPUs, memory slices /
   * memory slices per GPU for MIG, or 1 / R for MPS and time-slicing.
   */
  bandwidthShare: number;
  /** Bytes of weights read once per decode step. */
  weightsBytes: number;
  /** KV cache bytes per token (2 x layers x KV heads x head dim x bytes). */
  kvBytesPerToken: number;
  /** Concurrent sequences the engine runs (`--max-num-seqs`). */
  concurrency: number;
  maxModelLen: number;
  /** Memory left for KV cache in the slice; limits how many sequences run at once. Unlimited when absent. */
  kvBudgetBytes?: number;
}

/**
 * Estimates the output tokens per second one replica sustains when fully busy, for quotes whose request states no
 * demand. The model is memory-bandwidth-bound decode: every step reads the weights once plus the KV cache of the
 * sequences in the batch, so
 *
 * `tokens/s = batch x bandwidth x bandwidthShare x efficiency / (weights + batch x averageContext x kvBytesPerToken)`
 *
 * with `averageContext = min(maxModelLen, ASSUMED_AVERAGE_CONTEXT_TOKENS)` and `batch` the concurrency, lowered to
 * what the KV budget holds at that context. Compute limits, prefill and time-slicing contention are ignored, so it is
 * an optimistic upper bound for large batches on small GPUs and a rough guide only. Undefined for unknown GPU models.
 *
 * @public
 */
export function estimateDecodeThroughput(
  input: DecodeThroughputInput,
): number | undefined {
  const bandwidthGbps = GPU_MEMORY_BANDWIDTH_GBPS[input.gpuModel];
  if (bandwidthGbps === undefined || !(input.bandwidthShare > 0)) {
    return undefined;
  }
  const averageContext = Math.min(
    input.maxModelLen,
    ASSUMED_AVERAGE_CONTEXT_TOKENS,
  );
  const kvPerSequence = averageContext * input.kvBytesPerToken;
  let batch = Math.max(1, input.concurrency);
  if (input.kvBudgetBytes !== undefined && kvPerSequence > 0) {
    batch = Math.max(
      1,
      Math.min(batch, Math.floor(input.kvBudgetBytes / kvPerSequence)),
    );
  }
  const bytesPerStep = input.weightsBytes + batch * kvPerSequence;
  const bytesPerSecond =
    bandwidthGbps * 1e9 * input.bandwidthShare * DECODE_BANDWIDTH_EFFICIENCY;
  return (batch * bytesPerSecond) / bytesPerStep;
}
