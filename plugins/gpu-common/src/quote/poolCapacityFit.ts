import { formatGpuUnits, gpuEquivalentsOf } from '../tiers/gpuUnits';
import { describePoolCapacity, PoolCapacity } from './governance';

/**
 * Approval reason code of a request that fits its team's quota but not its pool's free capacity (what every team
 * holds there against what the pool physically has), under the `approval` policy.
 *
 * @public
 */
export const OVER_POOL_CAPACITY = 'over-pool-capacity';

/**
 * What happens to a request that fits its team's quota but not its pool's free capacity (`gpu.admission.whenOverPoolCapacity`):
 * `approval` (the default) records it and waits for an approver, who may approve it once capacity is free (never
 * beyond the pool's physical capacity); `refuse` answers 409 and reserves nothing.
 *
 * @public
 */
export type PoolCapacityPolicy = 'refuse' | 'approval';

/**
 * The policy when `gpu.admission.whenOverPoolCapacity` is not set: the request is recorded and waits for an approver,
 * as a request over quota does, instead of being lost.
 *
 * @public
 */
export const DEFAULT_POOL_CAPACITY_POLICY: PoolCapacityPolicy = 'approval';

/**
 * What every team holds on a pool, in GPU units, in all and per MIG profile.
 *
 * @public
 */
export interface PoolHeldUnits {
  /** GPU units held on the pool in all. */
  units: number;
  /** MIG pools: units held per profile. */
  unitsByProfile: Record<string, number>;
}

/**
 * A request weighed against a pool's free capacity.
 *
 * @public
 */
export interface PoolCapacityFit {
  /** The pool's name. */
  pool: string;
  /** GPU-equivalents the pool holds at most. */
  capacityGpuEquivalents: number;
  /** GPU-equivalents every team holds there now. */
  heldGpuEquivalents: number;
  /** GPU-equivalents the request asks for. */
  requestedGpuEquivalents: number;
  /** Capacity - held, never below 0. */
  freeGpuEquivalents: number;
  /** Whether the request fits what is free (in GPU units, and in slots of its MIG profile on a MIG pool). */
  fits: boolean;
  /**
   * Why it does not fit, in figures (it has 8 GPUs (1 node x 8 GPUs), 6 GPU-equivalents are held by all teams and
   * this request needs 4); undefined when it fits.
   */
  shortfall?: string;
}

/**
 * The one capacity rule, used by the quote and by the store's admission alike: a request fits its pool when what
 * every team holds there plus the request is within the pool's physical capacity, in GPU units and, on a MIG pool,
 * in slots of the request's profile.
 *
 * @public
 */
export function poolCapacityFit(
  capacity: PoolCapacity,
  held: PoolHeldUnits,
  request: { gpuUnits: number; migProfile?: string },
): PoolCapacityFit {
  const figures = {
    pool: capacity.pool,
    capacityGpuEquivalents: capacity.gpuEquivalents,
    heldGpuEquivalents: gpuEquivalentsOf(held.units),
    requestedGpuEquivalents: gpuEquivalentsOf(request.gpuUnits),
    freeGpuEquivalents: gpuEquivalentsOf(
      Math.max(0, capacity.gpuUnits - held.units),
    ),
  };
  const profile = request.migProfile;
  const slots =
    profile && capacity.migSlots ? capacity.migSlots[profile] : undefined;
  if (slots && profile) {
    const heldUnits = held.unitsByProfile[profile] ?? 0;
    if (heldUnits + request.gpuUnits > slots.instances * slots.gpuUnits) {
      return {
        ...figures,
        fits: false,
        shortfall:
          `it has ${describePoolCapacity(capacity, profile)}, ${Math.round(
            heldUnits / slots.gpuUnits,
          )} are held by all teams ` +
          `and this request needs ${Math.round(
            request.gpuUnits / slots.gpuUnits,
          )}`,
      };
    }
  }
  if (held.units + request.gpuUnits > capacity.gpuUnits) {
    return {
      ...figures,
      fits: false,
      shortfall:
        `it has ${describePoolCapacity(capacity)}, ${formatGpuUnits(
          held.units,
        )} GPU-equivalents are held by all teams ` +
        `and this request needs ${formatGpuUnits(request.gpuUnits)}`,
    };
  }
  return { ...figures, fits: true };
}

/**
 * Why a request within quota waits for an approver or is refused, by the policy: the pool's figures and what to do.
 *
 * @public
 */
export function poolCapacityReason(
  fit: PoolCapacityFit,
  policy: PoolCapacityPolicy,
): string | undefined {
  if (fit.fits) return undefined;
  return policy === 'refuse'
    ? `Over the free capacity of pool '${fit.pool}': ${fit.shortfall}. The platform refuses requests beyond a pool's free ` +
        `capacity and reserves nothing for them (gpu.admission.whenOverPoolCapacity: refuse): free capacity, ask ` +
        `for less, or choose another pool`
    : `Over the free capacity of pool '${fit.pool}': ${fit.shortfall}. An approver can approve it once capacity is free ` +
        `(gpu.admission.whenOverPoolCapacity: approval)`;
}
