/**
 * Memory one replica of a service needs, in bytes.
 *
 * @public
 */
export interface MemoryEstimate {
  /** Model weights at the chosen dtype, including quantisation scales. */
  weightsBytes: number;
  /** KV cache for `concurrency` sequences of `maxModelLen` tokens. */
  kvCacheBytes: number;
  /** CUDA context per GPU plus peak activations. */
  overheadBytes: number;
  /** The sum of the three. */
  totalBytes: number;
}
