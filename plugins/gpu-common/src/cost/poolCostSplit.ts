import { Platform, Pool } from '../platform/types';
import { poolCapacity } from '../quote/governance';
import { GPU_UNITS_PER_EQUIVALENT } from '../tiers/gpuUnits';
import { UsdMicros } from './money';
import { poolPrices } from './poolPrices';
import { scaleUsd } from './scaleUsd';
import { splitMicros } from './splitMicros';

/**
 * What a pool's capacity costs a month and where it goes: held by services (allocated), left unusable by the MIG
 * layout (stranded), or free (unallocated). allocated + stranded + unallocated = capacity, exactly, in micro-dollars
 * and in GPU units.
 *
 * @public
 */
export interface PoolCostSplit {
  pool: string;
  /** Physical GPUs at the pool's largest: maxNodes x GPUs per node. */
  gpus: number;
  /** GPUs x 5040. */
  capacityGpuUnits: number;
  /** Held by reservations (at most what the layout can give out). */
  allocatedGpuUnits: number;
  /** GPUs x the layout's stranded units per GPU (0 unless MIG). */
  strandedGpuUnits: number;
  unallocatedGpuUnits: number;
  /** maxNodes x node-hour price x hours a month. */
  capacityMicros: UsdMicros;
  allocatedMicros: UsdMicros;
  strandedMicros: UsdMicros;
  unallocatedMicros: UsdMicros;
}

/**
 * The monthly capacity cost of `pool` (maxNodes x node-hour price x `platform.hoursPerMonth`) split by GPU units into
 * allocated (`heldGpuUnits`, what every team holds there, capped at what the layout can give out), stranded (the MIG
 * layout's unused units, `migSliceWeights`) and unallocated, by largest remainder so the three add up to the capacity
 * cost to the micro-dollar. A pool of 8 A100s laid out as two `1g.10gb` each strands 3600 of 5040 units per GPU: 5/7
 * of its price.
 *
 * @public
 */
export function poolCostSplit(
  platform: Pick<Platform, 'gpuModels' | 'pools' | 'hoursPerMonth'>,
  pool: Pool,
  heldGpuUnits: number,
): PoolCostSplit {
  const capacity = poolCapacity(platform, pool);
  const gpus = capacity.nodes * capacity.gpusPerNode;
  const capacityGpuUnits = gpus * GPU_UNITS_PER_EQUIVALENT;
  const strandedGpuUnits = capacityGpuUnits - capacity.gpuUnits;
  const allocatedGpuUnits = Math.min(
    Math.max(0, heldGpuUnits),
    capacity.gpuUnits,
  );
  const unallocatedGpuUnits = capacity.gpuUnits - allocatedGpuUnits;
  const price = poolPrices(platform).get(pool.name)!;
  const capacityMicros = scaleUsd(price.nodeHour, [
    pool.maxNodes,
    platform.hoursPerMonth,
  ]);
  const [allocatedMicros, strandedMicros, unallocatedMicros] =
    capacityGpuUnits === 0
      ? [0, 0, capacityMicros]
      : splitMicros(capacityMicros, [
          allocatedGpuUnits,
          strandedGpuUnits,
          unallocatedGpuUnits,
        ]);
  return {
    pool: pool.name,
    gpus,
    capacityGpuUnits,
    allocatedGpuUnits,
    strandedGpuUnits,
    unallocatedGpuUnits,
    capacityMicros,
    allocatedMicros,
    strandedMicros,
    unallocatedMicros,
  };
}
