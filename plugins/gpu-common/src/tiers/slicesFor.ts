import { findGpuModel, findPool } from '../platform/lookups';
import { Platform, Pool } from '../platform/types';
import { GB, GIB } from '../sizing/units';
import { GPU_UNITS_PER_EQUIVALENT } from './gpuUnits';
import { poolMigSliceWeights } from './migSliceWeights';
import { poolTier } from './poolTier';
import { resourceNameFor } from './resourceNameFor';
import { tierIsolation } from './tierIsolation';
import { Slice } from './types';

/**
 * `--gpu-memory-utilization` for a replica that owns its device (dedicated GPUs, a MIG slice).
 *
 * @public
 */
export const DEDICATED_GPU_MEMORY_UTILIZATION = 0.9;

/**
 * Tensor-parallel sizes a dedicated slice can have (capped by the pool's GPUs per node).
 *
 * @public
 */
export const TENSOR_PARALLEL_SIZES: readonly number[] = [1, 2, 4, 8];

/**
 * `--gpu-memory-utilization` for one of `replicas` shares of a GPU: 0.90 / R rounded down to two decimals
 * (R = 4 gives 0.22), so the shares together never claim more than 90% of the card.
 *
 * @public
 */
export function sharedGpuMemoryUtilization(replicas: number): number {
  return (
    Math.floor((DEDICATED_GPU_MEMORY_UTILIZATION * 100) / replicas + 1e-9) / 100
  );
}

/**
 * Every slice a replica can get from `pool`: one per tensor-parallel size (1, 2, 4, 8 up to GPUs per node) on a
 * dedicated pool, one per MIG profile of the layout on a MIG pool (weighed by `migSliceWeights`), one 1/R share on
 * an MPS or time-slicing pool.
 * Card memory is GiB (2^30 bytes), MIG memory GB (10^9) as the profile name states.
 *
 * @throws GpuDomainError `UNKNOWN_POOL` when `pool` is a name the platform does not have, `UNKNOWN_MODEL` when its
 *   GPU model is unknown.
 * @public
 */
export function slicesFor(platform: Platform, pool: Pool | string): Slice[] {
  const resolved = typeof pool === 'string' ? findPool(platform, pool) : pool;
  const gpu = findGpuModel(platform, resolved.gpuModel);
  const tier = poolTier(resolved);
  const cardBytes = gpu.memoryGiB * GIB;
  const common = {
    tier,
    pool: resolved.name,
    gpuModel: gpu.name,
    isolation: tierIsolation(tier),
    allocation: resolved.allocation,
  };
  const sharing = resolved.sharing;

  switch (sharing.type) {
    case 'none':
      return TENSOR_PARALLEL_SIZES.filter(n => n <= resolved.gpusPerNode).map(
        n => ({
          ...common,
          gpusPerReplica: n,
          memoryBytes: n * cardBytes,
          deviceMemoryBytes: n * cardBytes,
          gpuUnits: n * GPU_UNITS_PER_EQUIVALENT,
          gpuShare: n,
          resourceName: resourceNameFor(resolved),
          resourceCount: n,
          gpuMemoryUtilization: DEDICATED_GPU_MEMORY_UTILIZATION,
        }),
      );
    case 'mig': {
      const weights = poolMigSliceWeights(gpu, sharing).unitsByProfile;
      return gpu.migProfiles
        .filter(profile => Object.hasOwn(weights, profile.name))
        .map(profile => ({
          ...common,
          migProfile: profile.name,
          gpusPerReplica: 1,
          memoryBytes: profile.memoryGb * GB,
          deviceMemoryBytes: profile.memoryGb * GB,
          gpuUnits: weights[profile.name],
          gpuShare: weights[profile.name] / GPU_UNITS_PER_EQUIVALENT,
          resourceName: resourceNameFor(resolved, profile.name),
          resourceCount: 1,
          gpuMemoryUtilization: DEDICATED_GPU_MEMORY_UTILIZATION,
        }));
    }
    case 'mps':
    case 'time-slicing':
      return [
        {
          ...common,
          gpusPerReplica: 1,
          memoryBytes: cardBytes / sharing.replicas,
          deviceMemoryBytes: cardBytes,
          gpuUnits: Math.floor(GPU_UNITS_PER_EQUIVALENT / sharing.replicas),
          gpuShare:
            Math.floor(GPU_UNITS_PER_EQUIVALENT / sharing.replicas) /
            GPU_UNITS_PER_EQUIVALENT,
          resourceName: resourceNameFor(resolved),
          resourceCount: 1,
          gpuMemoryUtilization: sharedGpuMemoryUtilization(sharing.replicas),
        },
      ];
    default:
      return [];
  }
}
