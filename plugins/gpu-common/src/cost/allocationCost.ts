import { Pool } from '../platform/types';
import { parseUsd, UsdMicros } from './money';
import { scaleUsd } from './scaleUsd';

/**
 * What pricing needs to know of a pool.
 *
 * @public
 */
export type PricedPool = Pick<Pool, 'pricePerNodeHour' | 'gpusPerNode'>;

/**
 * Price of one whole GPU of a pool for one hour: the node-hour price divided by the GPUs per node, rounded to
 * micro-dollars. Use it for display; costs are computed from the node price without this rounding.
 *
 * @public
 */
export function gpuHourPrice(pool: PricedPool): UsdMicros {
  return scaleUsd(parseUsd(pool.pricePerNodeHour), [], [pool.gpusPerNode]);
}

/**
 * Allocation cost, what the bill says: GPU share x GPU-hour price x hours, rounded once to micro-dollars.
 *
 * @param pool - the pool (or its price and GPUs per node)
 * @param gpuShare - GPU-equivalents held: whole GPUs for dedicated, the slice weight (`migSliceWeights`) for MIG, 1 / R for MPS and
 *   time-slicing, times the replicas when costing a whole service
 * @param hours - hours held
 * @public
 */
export function allocationCost(
  pool: PricedPool,
  gpuShare: number,
  hours: number,
): UsdMicros {
  return scaleUsd(
    parseUsd(pool.pricePerNodeHour),
    [gpuShare, hours],
    [pool.gpusPerNode],
  );
}
