import { Platform, Pool } from '../platform/types';
import { allocationCost, PricedPool } from './allocationCost';
import { UsdMicros } from './money';
import { poolPrices } from './poolPrices';

/**
 * The on-demand pool a spot pool is compared with: the cheapest on-demand pool (per GPU-hour) of the same GPU model.
 * Undefined when the pool is not spot or no on-demand pool has its GPU model.
 *
 * @public
 */
export function onDemandReferencePool(
  platform: Pick<Platform, 'pools'>,
  pool: Pool,
): Pool | undefined {
  return poolPrices(platform).get(pool.name)?.onDemand?.pool;
}

/**
 * What running on spot saves against on-demand for the same GPU share and hours: the on-demand allocation cost minus
 * the spot allocation cost (negative if the spot price is higher).
 *
 * @public
 */
export function spotSaving(
  spot: PricedPool,
  onDemand: PricedPool,
  gpuShare: number,
  hours: number,
): UsdMicros {
  return (
    allocationCost(onDemand, gpuShare, hours) -
    allocationCost(spot, gpuShare, hours)
  );
}
