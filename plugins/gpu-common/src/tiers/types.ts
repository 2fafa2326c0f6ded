import { PoolAllocation, SharingTier } from '../platform/types';

/**
 * How strongly a tier isolates a service from its neighbours: `full` (whole GPUs), `hardware` (MIG: memory and
 * compute partitioned by the GPU), `capped` (MPS: memory and threads limited to 1/R), `none` (time-slicing).
 *
 * @public
 */
export type Isolation = 'full' | 'hardware' | 'capped' | 'none';

/**
 * One shape of GPU capacity a replica can get from a pool: a number of whole GPUs, a MIG profile, or a 1/R share.
 *
 * @public
 */
export interface Slice {
  tier: SharingTier;
  /** Pool name. */
  pool: string;
  /** GPU model name of the pool. */
  gpuModel: string;
  /** MIG profile, for the `mig` tier. */
  migProfile?: string;
  /** Whole GPUs per replica (tensor parallel size) for `dedicated`; 1 otherwise. */
  gpusPerReplica: number;
  /**
   * Memory the replica may use, in bytes: GPUs x card memory (GiB) for dedicated, the profile's GB for MIG,
   * card memory / R for MPS and time-slicing.
   */
  memoryBytes: number;
  /** Memory of the device the runtime sees, in bytes: the whole card(s) except for MIG, where it is the slice. */
  deviceMemoryBytes: number;
  /**
   * GPU units (1/5040 GPU, `GPU_UNITS_PER_EQUIVALENT`) one replica accounts for in cost and quota: N x 5040 for
   * dedicated, the MIG profile's weight in its pool's layout (`migSliceWeights`), 5040 / R for MPS and time-slicing.
   * Arithmetic uses these.
   */
  gpuUnits: number;
  /** `gpuUnits` / 5040: GPU-equivalents per replica, for display. */
  gpuShare: number;
  isolation: Isolation;
  /**
   * Container resource name, e.g. `nvidia.com/gpu`, `nvidia.com/mig-1g.10gb`, `nvidia.com/gpu.shared`. On a DRA pool
   * the container names a ResourceClaim instead and this is the resource Kueue charges the claim in
   * (`DRA_GPU_RESOURCE`, `DRA_MIG_DEVICES_RESOURCE`).
   */
  resourceName: string;
  /** Container resource count: N for dedicated, 1 otherwise. */
  resourceCount: number;
  /** vLLM `--gpu-memory-utilization`: a fraction of `deviceMemoryBytes`. */
  gpuMemoryUtilization: number;
  /** The pool's allocation: device plugin or DRA, and why a pool asked to use DRA does not. */
  allocation: PoolAllocation;
}
