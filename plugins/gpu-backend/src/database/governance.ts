import { ConflictError, InputError, NotAllowedError } from '@backstage/errors';
import {
  describePoolCapacity,
  Platform,
  physicalCapacityShortfall,
  Pool,
  PoolCapacity,
  poolCapacity,
  PoolPrice,
  poolPrices,
  SPOT_IN_PRODUCTION,
  spotInProductionReason,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';

import { isPostgres } from './transactions';
import {
  Amounts,
  ApprovalReason,
  ApprovalRecord,
  ServiceRecord,
} from './types';
import { formatGpuUnits, readInteger } from './units';

/** What the store needs of the platform to govern admission: pools (capacity, price, capacity type), GPU models, environments. */
export type GovernedPlatform = Pick<
  Platform,
  'pools' | 'gpuModels' | 'environments'
>;

/** Requests a team may have waiting for approval at once when `gpu.approvals.maxPendingPerTeam` is not set. */
export const DEFAULT_MAX_PENDING_APPROVALS_PER_TEAM = 20;

/** The platform and the clock the store decides with. */
export interface GovernanceContext {
  platform: GovernedPlatform;
  prices: ReadonlyMap<string, PoolPrice>;
  /** The current time; injectable so that month boundaries can be tested without waiting. */
  now: () => Date;
  /** Requests of one team that may wait for approval at once; one more is refused until some are decided. */
  maxPendingApprovalsPerTeam: number;
}

export function governanceContext(
  platform: GovernedPlatform,
  clock: () => Date = () => new Date(),
  maxPendingApprovalsPerTeam = DEFAULT_MAX_PENDING_APPROVALS_PER_TEAM,
): GovernanceContext {
  return {
    platform,
    prices: poolPrices(platform),
    now: clock,
    maxPendingApprovalsPerTeam,
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

/** Reasons the store itself sends a request to approval whatever its quota: a production service on spot capacity. */
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

/** Actors as entity refs compare case-insensitively, `user:alice` being `user:default/alice`. */
function normaliseActor(actor: string): string {
  const lower = actor.trim().toLowerCase();
  const match = /^user:([^/]+)$/.exec(lower);
  return match ? `user:default/${match[1]}` : lower;
}

/**
 * Four eyes: only a user decides, and never on their own request. Refuses (`NotAllowedError`) a decision by the
 * requester of the approval, by the creator of a new service it decides on, and by any actor that is not a user:
 * service principals (`service:...`) and system actors neither approve nor reject, approvals being a human
 * decision (a service may still request, and a teardown still withdraws a pending approval).
 */
export function assertMayDecide(
  approval: ApprovalRecord,
  service: ServiceRecord,
  actor: string,
  decision: 'approve' | 'reject',
): void {
  const who = normaliseActor(actor);
  if (!who.startsWith('user:')) {
    throw new NotAllowedError(
      `Only a user can ${decision} a GPU request: '${actor}' is not a user. Approvals are a human decision; ` +
        `service principals may neither approve nor reject`,
    );
  }
  if (who === normaliseActor(approval.requestedBy)) {
    throw new NotAllowedError(
      `${actor} cannot decide their own request: approval ${approval.id} for '${service.name}' was requested by ` +
        `${approval.requestedBy}; another approver must ${decision} it`,
    );
  }
  if (approval.kind === 'create' && who === normaliseActor(service.createdBy)) {
    throw new NotAllowedError(
      `${actor} cannot decide their own request: '${service.name}' was created by ${service.createdBy}; ` +
        `another approver must ${decision} it`,
    );
  }
}

/**
 * Serialises holds on one pool across teams on PostgreSQL (a transaction-level advisory lock, taken after the team's
 * quota row and the service row, so writers never wait on each other in opposite orders); SQLite runs one
 * transaction at a time.
 */
export async function lockPool(
  tx: Knex.Transaction,
  pool: string,
): Promise<void> {
  if (isPostgres(tx) && process.env.NO_POOL_LOCK !== '1') {
    await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `backstage-gpu:pool:${pool}`,
    ]);
  }
}

/** What every team holds on a pool, in stored units, in all and per MIG profile. */
export interface PoolHeld {
  units: number;
  unitsByProfile: Map<string, number>;
}

/** What every team holds on the pool, optionally leaving one reservation out (the one a change gives back). */
export async function readPoolHeld(
  db: Knex | Knex.Transaction,
  pool: string,
  excludeReservationId?: string,
): Promise<PoolHeld> {
  let query = db('reservations')
    .join('services', 'services.id', 'reservations.service_id')
    .where('reservations.pool', pool)
    .where('reservations.state', 'held')
    .select(
      'reservations.gpu_units as units',
      'services.placement as placement',
    );
  if (excludeReservationId) {
    query = query.whereNot('reservations.id', excludeReservationId);
  }
  const rows = (await query) as unknown as Array<{
    units: unknown;
    placement: string;
  }>;
  const held: PoolHeld = { units: 0, unitsByProfile: new Map() };
  for (const row of rows) {
    const units = readInteger(row.units);
    held.units += units;
    const profile = (JSON.parse(row.placement) as { migProfile?: string })
      .migProfile;
    if (profile) {
      held.unitsByProfile.set(
        profile,
        (held.unitsByProfile.get(profile) ?? 0) + units,
      );
    }
  }
  return held;
}

/**
 * Why holding `amounts` would push the pool's held allocation (every team's) over its physical capacity, in
 * GPU-equivalents and, on a MIG pool, in slots of the request's profile; undefined when it fits.
 */
export function capacityConflict(
  capacity: PoolCapacity,
  held: PoolHeld,
  amounts: Amounts,
  migProfile: string | undefined,
): string | undefined {
  const slots =
    migProfile && capacity.migSlots ? capacity.migSlots[migProfile] : undefined;
  if (slots) {
    const slotUnits = slots.gpuUnits;
    const heldUnits = held.unitsByProfile.get(migProfile!) ?? 0;
    if (heldUnits + amounts.gpuUnits > slots.instances * slotUnits) {
      return overCapacity(
        capacity.pool,
        describePoolCapacity(capacity, migProfile),
        `${Math.round(heldUnits / slotUnits)} are held`,
        `${Math.round(amounts.gpuUnits / slotUnits)}`,
      );
    }
  }
  if (held.units + amounts.gpuUnits > capacity.gpuUnits) {
    return overCapacity(
      capacity.pool,
      describePoolCapacity(capacity),
      `${formatGpuUnits(held.units)} GPU-equivalents are held`,
      `${formatGpuUnits(amounts.gpuUnits)}`,
    );
  }
  return undefined;
}

function overCapacity(
  pool: string,
  capacity: string,
  held: string,
  requested: string,
): string {
  return (
    `Approving would exceed the physical capacity of pool '${pool}': it has ${capacity}, ${held} by all teams ` +
    `and this request needs ${requested}. Nothing is granted beyond what the pool physically has, even with ` +
    `allowOverQuota; free capacity first, or reject the request`
  );
}

/** Throws the {@link capacityConflict} as a `ConflictError`. */
export function assertWithinCapacity(conflict: string | undefined): void {
  if (conflict) {
    throw new ConflictError(conflict);
  }
}
