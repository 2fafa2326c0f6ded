import { Platform, PlannerItem, slicesFor } from '../plugins/gpu-common/src';
import { Random } from './random';

/**
 * A packing stress mix: `count` services, each on one uniformly chosen slice of a uniformly chosen pool (any MIG
 * profile of the pool's GPU, any tensor-parallel size on a dedicated pool, the 1/R share on an MPS or time-slicing
 * pool), with 1 to 4 replicas. Unlike the request mix, where cost picks one profile per pool, every pool gets a
 * mixture of slice sizes to pack.
 */
export function generateSliceMix(
  random: Random,
  platform: Platform,
  count: number,
): PlannerItem[] {
  const slicesByPool = platform.pools.map(pool => slicesFor(platform, pool));
  return Array.from({ length: count }, (_, i) => {
    const slice = random.pick(random.pick(slicesByPool));
    return {
      name: `mix-${i}`,
      replicas: random.int(1, 4),
      options: [
        {
          tier: slice.tier,
          pool: slice.pool,
          migProfile: slice.migProfile,
          gpusPerReplica: slice.gpusPerReplica,
          gpuShare: slice.gpuShare,
          memoryBytes: slice.memoryBytes,
        },
      ],
    };
  });
}
