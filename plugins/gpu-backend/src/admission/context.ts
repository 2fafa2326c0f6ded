import { InputError } from '@backstage/errors';
import {
  DEFAULT_POOL_CAPACITY_POLICY,
  physicalCapacityShortfall,
  Platform,
  Pool,
  PoolCapacity,
  poolCapacity,
  PoolCapacityPolicy,
  PoolPrice,
  poolPrices,
  SPOT_IN_PRODUCTION,
  spotInProductionReason,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Amounts, ApprovalReason } from './types';

/** What admission needs of the platform: pools (capacity, price, capacity type), GPU models, environments. */
export type GovernedPlatform = Pick<
  Platform,
  'pools' | 'gpuModels' | 'environments'
>;

/** Requests a team may have waiting for approval at once when `gpu.approvals.maxPendingPerTeam` is not set. */
export const DEFAULT_MAX_PENDING_APPROVALS_PER_TEAM = 20;

/** The platform, its admission settings and the clock admission decides with. */
export interface GovernanceContext {
  platform: GovernedPlatform;
  prices: ReadonlyMap<string, PoolPrice>;
  /** The current time; injectable so that month boundaries can be tested without waiting. */
  now: () => Date;
  /** Requests of one team that may wait for approval at once; one more is refused until some are decided. */
  maxPendingApprovalsPerTeam: number;
  /** What happens to a request within quota but beyond its pool's free capacity (`gpu.admission.whenOverPoolCapacity`). */
  whenOverPoolCapacity: PoolCapacityPolicy;
}

export function governanceContext(
  platform: GovernedPlatform,
  options: {
    clock?: () => Date;
    maxPendingApprovalsPerTeam?: number;
    whenOverPoolCapacity?: PoolCapacityPolicy;
  } = {},
): GovernanceContext {
  return {
    platform,
    prices: poolPrices(platform),
    now: options.clock ?? (() => new Date()),
    maxPendingApprovalsPerTeam:
      options.maxPendingApprovalsPerTeam ??
      DEFAULT_MAX_PENDING_APPROVALS_PER_TEAM,
    whenOverPoolCapacity:
      options.whenOverPoolCapacity ?? DEFAULT_POOL_CAPACITY_POLICY,
  };
}

/** The platform's pool of that name; `InputError` when the platform has none (nothing can be held there). */
export function poolOf(context: GovernanceContext, name: string): Pool {
  const pool = context.platform.pools.find(p => p.name === name);
  if (!pool) {
    throw new InputError(
      `Pool '${name}' is not one of the platform's pools (${context.platform.pools
        .map(p => p.name)
        .join(', ')}); nothing can be reserved in it`,
    );
  }
  return pool;
}

/** The pool's physical capacity; `InputError` when the pool is unknown. */
export function capacityOf(
  context: GovernanceContext,
  pool: string,
): PoolCapacity {
  return poolCapacity(context.platform, poolOf(context, pool));
}

/**
 * Refuses (`InputError`) a request that alone needs more than its pool's physical capacity: it could never run there,
 * whatever quota or approval it gets.
 */
export function checkPhysicalFit(
  context: GovernanceContext,
  pool: string,
  amounts: Amounts,
  migProfile: string | undefined,
): void {
  const shortfall = physicalCapacityShortfall(capacityOf(context, pool), {
    gpuUnits: amounts.gpuUnits,
    migProfile,
  });
  if (shortfall) {
    throw new InputError(shortfall);
  }
}

/** Reasons admission itself sends a request to approval whatever its quota: a production service on spot capacity. */
export function governanceReasons(
  context: GovernanceContext,
  environmentName: string,
  pool: string,
): ApprovalReason[] {
  const environment = context.platform.environments.find(
    e => e.name === environmentName,
  ) ?? { name: environmentName, podDisruptionBudget: false };
  const message = spotInProductionReason(environment, poolOf(context, pool));
  return message ? [{ code: SPOT_IN_PRODUCTION, message }] : [];
}
