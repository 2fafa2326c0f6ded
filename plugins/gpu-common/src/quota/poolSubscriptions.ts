import { Platform } from '../platform/types';
import { poolCapacity } from '../quote/governance';
import type {
  PoolCapacityPolicy,
  PoolHeldUnits,
} from '../quote/poolCapacityFit';
import { gpuEquivalentsOf } from '../tiers/gpuUnits';
import { TeamAllowance } from './teamAllowance';

/**
 * A pool's physical capacity against the quotas every team has on it and what they hold
 * (`GET /api/gpu/pools/subscription`).
 *
 * @public
 */
export interface PoolSubscription {
  /** The pool's name. */
  pool: string;
  /** GPU-equivalents the pool holds at most (nodes x GPUs at `maxNodes`; a MIG pool's slots). */
  capacityGpuEquivalents: number;
  /** The sum of every team's quota on the pool, in GPU-equivalents. */
  quotaGpuEquivalents: number;
  /** Teams with a quota on the pool. */
  teams: number;
  /** GPU-equivalents every team holds there now. */
  heldGpuEquivalents: number;
  /**
   * Whether the quotas together exceed the capacity: teams within their quotas can then ask for more than the pool
   * has, and admission's `gpu.admission.whenOverPoolCapacity` decides what happens to those requests.
   */
  oversubscribed: boolean;
}

/**
 * Every pool of the platform with the sum of the teams' quotas on it, what is held, and whether the quotas
 * oversubscribe it (in GPU units, so the comparison is exact).
 *
 * @public
 */
export function poolSubscriptions(
  platform: Pick<Platform, 'pools' | 'gpuModels'>,
  allowances: readonly TeamAllowance[],
  heldByPool: Readonly<Record<string, PoolHeldUnits>>,
): PoolSubscription[] {
  return platform.pools.map(pool => {
    const capacity = poolCapacity(platform, pool);
    let quotaUnits = 0;
    let teams = 0;
    for (const allowance of allowances) {
      const units = Object.hasOwn(allowance.gpuUnits, pool.name)
        ? allowance.gpuUnits[pool.name]
        : 0;
      if (units > 0) {
        quotaUnits += units;
        teams += 1;
      }
    }
    const held = Object.hasOwn(heldByPool, pool.name)
      ? heldByPool[pool.name].units
      : 0;
    return {
      pool: pool.name,
      capacityGpuEquivalents: capacity.gpuEquivalents,
      quotaGpuEquivalents: gpuEquivalentsOf(quotaUnits),
      teams,
      heldGpuEquivalents: gpuEquivalentsOf(held),
      oversubscribed: quotaUnits > capacity.gpuUnits,
    };
  });
}

/**
 * Response of `GET /api/gpu/pools/subscription`.
 *
 * @public
 */
export interface PoolSubscriptionsResponse {
  items: PoolSubscription[];
  /** What admission does with a request within quota beyond a pool's free capacity. */
  whenOverPoolCapacity: PoolCapacityPolicy;
}
