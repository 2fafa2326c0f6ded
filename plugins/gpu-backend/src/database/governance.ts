import { NotAllowedError } from '@backstage/errors';
import type { PoolHeldUnits } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';

import { POOL_LOCK_SQL, poolLockKey } from './poolLock';
import { isPostgres } from './transactions';
import { ApprovalRecord, ServiceRecord } from './types';
import { readInteger } from './units';

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
  if (isPostgres(tx)) {
    await tx.raw(`select ${POOL_LOCK_SQL}`, [poolLockKey(pool)]);
  }
}

/** What every team holds on the pool, optionally leaving one reservation out (the one a change gives back). */
export async function readPoolHeld(
  db: Knex | Knex.Transaction,
  pool: string,
  excludeReservationId?: string,
): Promise<PoolHeldUnits> {
  const held = await readHeldByPool(db, { pool, excludeReservationId });
  return held[pool] ?? { units: 0, unitsByProfile: {} };
}

/**
 * The reads {@link readPoolHeld} makes: the pool's sums, and the left-out reservation's row (no read without one),
 * for {@link poolHeldOf}.
 */
export function poolHeldQueries(
  db: Knex | Knex.Transaction,
  pool: string,
  excludeReservationId?: string,
): { sums: Knex.QueryBuilder; excluded: Knex.QueryBuilder | undefined } {
  return {
    sums: heldSumsQuery(db).where('pool', pool),
    excluded: excludeReservationId
      ? excludedQuery(db, excludeReservationId).where('pool', pool)
      : undefined,
  };
}

/** What every team holds on `pool`, from what {@link poolHeldQueries} answered. */
export function poolHeldOf(
  pool: string,
  sums: HeldRow[],
  excluded: HeldRow[],
): PoolHeldUnits {
  return heldByPoolOf(sums, excluded)[pool] ?? { units: 0, unitsByProfile: {} };
}

/**
 * What every team holds on each pool (pools where nothing is held are absent), and per MIG profile: read from the
 * sums the database keeps per pool and profile as reservations are written, so a create reads a few rows however
 * many services hold the pool.
 */
export async function readHeldByPool(
  db: Knex | Knex.Transaction,
  filter: {
    pool?: string;
    /** Only these pools (a snapshot reads again the pools a create changed). */
    pools?: readonly string[];
    excludeReservationId?: string;
  } = {},
): Promise<Record<string, PoolHeldUnits>> {
  const held = (query: Knex.QueryBuilder) => {
    if (filter.pool) query.where('pool', filter.pool);
    if (filter.pools) query.whereIn('pool', filter.pools);
    return query as Promise<HeldRow[]>;
  };
  const [sums, excluded] = await Promise.all([
    held(heldSumsQuery(db)),
    // The reservation left out is subtracted (a condition on its id would read every row, not the index).
    filter.excludeReservationId
      ? held(excludedQuery(db, filter.excludeReservationId))
      : [],
  ]);
  return heldByPoolOf(sums, excluded);
}

/** What reservations hold on a pool for one MIG profile (none outside MIG), as summed by the database. */
export type HeldRow = {
  pool: string;
  profile: string | null;
  units: unknown;
  reservations: unknown;
};

/** What every held reservation holds, summed per pool and MIG profile (see {@link heldByPoolOf}). */
export async function readHeldSums(
  db: Knex | Knex.Transaction,
): Promise<HeldRow[]> {
  return heldSumsQuery(db);
}

/** The held reservation left out, as a row of one reservation (no row when it is not held). */
function excludedQuery(
  db: Knex | Knex.Transaction,
  excludeReservationId: string,
): Knex.QueryBuilder {
  return db('reservations')
    .where({ id: excludeReservationId, state: 'held' })
    .select('pool', 'mig_profile as profile', 'gpu_units as units')
    .select(db.raw('1 as ??', ['reservations']));
}

function heldSumsQuery(db: Knex | Knex.Transaction): Knex.QueryBuilder {
  // Kept by triggers on `reservations` (migration 20261204210000): one row per pool and profile, '' outside MIG.
  return db('reservation_held_sums')
    .where('reservations', '>', 0)
    .select(
      'pool',
      db.raw('nullif(??, ?) as ??', ['mig_profile', '', 'profile']),
      'gpu_units as units',
      'reservations',
    );
}

/**
 * {@link readHeldByPool} from the sums per pool and MIG profile, less the `excluded` held reservations (each a row of
 * one reservation): pure, so that one read of the sums serves several requests that each leave out their own.
 */
export function heldByPoolOf(
  sums: HeldRow[],
  excluded: HeldRow[] = [],
): Record<string, PoolHeldUnits> {
  // Per pool and profile: units and the number of reservations, so that what only the left-out one held is absent.
  const groups = new Map<string, HeldRow & { count: number; sum: number }>();
  const add = (row: HeldRow, sign: number) => {
    const key = JSON.stringify([row.pool, row.profile ?? null]);
    const group = groups.get(key) ?? { ...row, count: 0, sum: 0 };
    group.count += sign * readInteger(row.reservations);
    group.sum += sign * readInteger(row.units);
    groups.set(key, group);
  };
  sums.forEach(row => add(row, 1));
  excluded.forEach(row => add(row, -1));
  const byPool: Record<string, PoolHeldUnits> = {};
  for (const group of groups.values()) {
    if (group.count <= 0) continue;
    const pool = (byPool[group.pool] ??= { units: 0, unitsByProfile: {} });
    pool.units += group.sum;
    if (group.profile) {
      pool.unitsByProfile[group.profile] =
        (pool.unitsByProfile[group.profile] ?? 0) + group.sum;
    }
  }
  return byPool;
}
