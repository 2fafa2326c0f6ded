import { NotAllowedError } from '@backstage/errors';
import type { PoolHeldUnits } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';

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
  if (isPostgres(tx) && process.env.NO_POOL_LOCK !== '1') {
    await tx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
      `backstage-gpu:pool:${pool}`,
    ]);
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

/** What every team holds on each pool (pools where nothing is held are absent). */
export async function readHeldByPool(
  db: Knex | Knex.Transaction,
  filter: { pool?: string; excludeReservationId?: string } = {},
): Promise<Record<string, PoolHeldUnits>> {
  let query = db('reservations')
    .join('services', 'services.id', 'reservations.service_id')
    .where('reservations.state', 'held')
    .select(
      'reservations.pool as pool',
      'reservations.gpu_units as units',
      'services.placement as placement',
    );
  if (filter.pool) {
    query = query.where('reservations.pool', filter.pool);
  }
  if (filter.excludeReservationId) {
    query = query.whereNot('reservations.id', filter.excludeReservationId);
  }
  const rows = (await query) as unknown as Array<{
    pool: string;
    units: unknown;
    placement: string;
  }>;
  const byPool: Record<string, PoolHeldUnits> = {};
  for (const row of rows) {
    const held = (byPool[row.pool] ??= { units: 0, unitsByProfile: {} });
    const units = readInteger(row.units);
    held.units += units;
    const profile = (JSON.parse(row.placement) as { migProfile?: string })
      .migProfile;
    if (profile) {
      held.unitsByProfile[profile] =
        (held.unitsByProfile[profile] ?? 0) + units;
    }
  }
  return byPool;
}
