import { Platform, Pool } from '../platform/types';
import { GPU_UNITS_PER_EQUIVALENT } from '../tiers/gpuUnits';
import { parseUsd, UsdMicros } from './money';
import { scaleUsd } from './scaleUsd';

/**
 * A pool's prices, parsed once.
 *
 * @public
 */
export interface PoolPrice {
  pool: Pool;
  /** Price per node-hour. */
  nodeHour: UsdMicros;
  /** Price per GPU-hour (node-hour / GPUs per node), rounded to micro-dollars; for display. */
  gpuHour: UsdMicros;
  /** For a spot pool, the cheapest on-demand pool of the same GPU model, if any. */
  onDemand?: PoolPrice;
}

const cache = new WeakMap<object, ReadonlyMap<string, PoolPrice>>();

/**
 * The prices of a platform's pools by pool name, parsed once per platform object (platforms are treated as
 * immutable: build a new one to change prices).
 *
 * @public
 */
export function poolPrices(
  platform: Pick<Platform, 'pools'>,
): ReadonlyMap<string, PoolPrice> {
  const cached = cache.get(platform);
  if (cached) {
    return cached;
  }
  const prices = new Map<string, PoolPrice>();
  for (const pool of platform.pools) {
    const nodeHour = parseUsd(pool.pricePerNodeHour);
    prices.set(pool.name, {
      pool,
      nodeHour,
      gpuHour: scaleUsd(nodeHour, [], [pool.gpusPerNode]),
    });
  }
  for (const price of prices.values()) {
    if (price.pool.capacityType !== 'spot') {
      continue;
    }
    for (const candidate of prices.values()) {
      if (
        candidate.pool.capacityType === 'on-demand' &&
        candidate.pool.gpuModel === price.pool.gpuModel &&
        (!price.onDemand ||
          candidate.nodeHour * price.onDemand.pool.gpusPerNode <
            price.onDemand.nodeHour * candidate.pool.gpusPerNode)
      ) {
        price.onDemand = candidate;
      }
    }
  }
  cache.set(platform, prices);
  return prices;
}

/**
 * Allocation cost on a priced pool: node-hour price / GPUs per node x GPU share x replicas x hours, rounded once.
 *
 * @public
 */
export function pooledCost(
  price: PoolPrice,
  gpuShare: number,
  hours: number,
  replicas: number = 1,
): UsdMicros {
  return scaleUsd(
    price.nodeHour,
    [gpuShare, replicas, hours],
    [price.pool.gpusPerNode],
  );
}

/**
 * Allocation cost of holding `gpuEquivalents` of a priced pool for `seconds`: node-hour price x GPU-equivalents x
 * seconds / (GPUs per node x 3600), rounded once to micro-dollars. The ledger's formula: month-to-date spend and the
 * rest-of-month projections of budgets use it per reservation.
 *
 * @public
 */
export function heldCost(
  price: PoolPrice,
  gpuEquivalents: number,
  seconds: number,
): UsdMicros {
  return scaleUsd(
    price.nodeHour,
    [gpuEquivalents, seconds],
    [price.pool.gpusPerNode, 3600],
  );
}

/**
 * Allocation cost of `gpuUnits` (1/5040 GPU) of a priced pool for `hours`: node-hour price x units x hours / (GPUs
 * per node x 5040), rounded once to micro-dollars.
 *
 * @public
 */
export function unitsCost(
  price: PoolPrice,
  gpuUnits: number,
  hours: number,
): UsdMicros {
  return scaleUsd(
    price.nodeHour,
    [gpuUnits, hours],
    [price.pool.gpusPerNode, GPU_UNITS_PER_EQUIVALENT],
  );
}

/**
 * {@link heldCost} in GPU units: node-hour price x units x seconds / (GPUs per node x 5040 x 3600), rounded once.
 *
 * @public
 */
export function heldUnitsCost(
  price: PoolPrice,
  gpuUnits: number,
  seconds: number,
): UsdMicros {
  return scaleUsd(
    price.nodeHour,
    [gpuUnits, seconds],
    [price.pool.gpusPerNode, GPU_UNITS_PER_EQUIVALENT, 3600],
  );
}
