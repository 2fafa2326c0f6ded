import { ConflictError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';

import { setApprovalState } from './approvals';
import { writeAuditEvent } from './audit';
import {
  ApprovalRow,
  PoolQuotaRow,
  ReservationRow,
  TeamQuotaRow,
  toApprovalRecord,
  toReservationRecord,
} from './rows';
import { isUuid } from './services';
import { isPostgres } from './transactions';
import {
  Amounts,
  LedgerSnapshot,
  ReservationRecord,
  ServiceRecord,
} from './types';
import { readInteger } from './units';

/** A ledger snapshot before the held amounts are summed. */
export type LedgerAllowance = Omit<
  LedgerSnapshot,
  'heldGpuUnits' | 'heldMonthlyCostMicros'
>;

/** Locks the team's quota row (PostgreSQL) and reads the pool's allowance. */
export async function lockLedger(
  tx: Knex.Transaction,
  team: string,
  pool: string,
): Promise<LedgerAllowance> {
  return ledgerOf(tx, team, pool, await lockTeam(tx, team));
}

async function ledgerOf(
  tx: Knex,
  team: string,
  pool: string,
  teamRow: TeamQuotaRow | undefined,
): Promise<LedgerAllowance> {
  if (!teamRow) {
    return { team, pool };
  }
  const poolRow = await tx<PoolQuotaRow>('pool_quotas')
    .where({ team, pool })
    .first();
  return allowanceOf(team, pool, teamRow, poolRow);
}

/** The team's allowance on the pool from its quota rows (no quota at all without the team's row). */
export function allowanceOf(
  team: string,
  pool: string,
  teamRow: TeamQuotaRow | undefined,
  poolRow: PoolQuotaRow | undefined,
): LedgerAllowance {
  if (!teamRow) {
    return { team, pool };
  }
  return {
    team,
    pool,
    nominalGpuUnits: readInteger(poolRow?.nominal_gpu_units),
    monthlyBudgetMicros: readInteger(teamRow.monthly_budget_micros),
  };
}

/** Locks the team's quota row on PostgreSQL (SQLite runs one transaction at a time). */
export async function lockTeam(
  tx: Knex.Transaction,
  team: string,
): Promise<TeamQuotaRow | undefined> {
  const query = tx<TeamQuotaRow>('team_quotas').where({ team }).first();
  return isPostgres(tx) ? query.forUpdate() : query;
}

/**
 * Adds what the team holds (on the ledger's pool, and its monthly cost on every pool), optionally leaving one
 * reservation out: one query, answered from the index on (team, state, pool, gpu_units, monthly_cost_micros).
 */
export async function withHeld(
  tx: Knex | Knex.Transaction,
  ledger: LedgerAllowance,
  excludeReservationId?: string,
): Promise<LedgerSnapshot> {
  const held = tx('reservations').where({ team: ledger.team, state: 'held' });
  const [sums] = await (excludeReservationId
    ? held.whereNot('id', excludeReservationId)
    : held
  ).select(
    tx.raw('sum(case when ?? = ? then ?? else 0 end) as ??', [
      'pool',
      ledger.pool,
      'gpu_units',
      'units',
    ]),
    tx.raw('sum(??) as ??', ['monthly_cost_micros', 'cost']),
  );
  return {
    ...ledger,
    heldGpuUnits: readInteger(sums?.units),
    heldMonthlyCostMicros: readInteger(sums?.cost),
  };
}

/** The reservation that currently counts for a service, if any. */
export async function heldReservation(
  tx: Knex | Knex.Transaction,
  serviceId: string,
): Promise<ReservationRecord | undefined> {
  const row = await tx<ReservationRow>('reservations')
    .where({ service_id: serviceId, state: 'held' })
    .first();
  return row ? toReservationRecord(row) : undefined;
}

/** Inserts a reservation and audits it. */
export async function insertReservation(
  tx: Knex.Transaction,
  options: {
    service: ServiceRecord;
    pool: string;
    /** The MIG profile of the placement it holds (the service's, or its change's); undefined outside the mig tier. */
    migProfile: string | undefined;
    amounts: Amounts;
    state: 'pending' | 'held';
    now: Date;
    actor: string;
  },
): Promise<ReservationRecord> {
  const { service, amounts, state, now } = options;
  const row: ReservationRow = {
    id: randomUUID(),
    service_id: service.id,
    team: service.team,
    pool: options.pool,
    gpu_units: amounts.gpuUnits,
    monthly_cost_micros: amounts.monthlyCostMicros,
    state,
    created_at: now,
    held_at: state === 'held' ? now : null,
    released_at: null,
    mig_profile: options.migProfile ?? null,
  };
  await tx<ReservationRow>('reservations').insert(row);
  const reservation = toReservationRecord(row);
  await writeAuditEvent(tx, {
    actor: options.actor,
    action: state === 'held' ? 'reservation.hold' : 'reservation.request',
    subjectType: 'reservation',
    subjectId: reservation.id,
    team: service.team,
    after: reservation,
  });
  return reservation;
}

/** Moves a reservation to a new state, only from the state it was read in. */
export async function setReservationState(
  tx: Knex.Transaction,
  before: ReservationRecord,
  state: 'held' | 'released',
  actor: string,
  now: Date,
): Promise<ReservationRecord> {
  const changed = await tx<ReservationRow>('reservations')
    .where({ id: before.id, state: before.state })
    .update(
      state === 'held' ? { state, held_at: now } : { state, released_at: now },
    );
  if (changed !== 1) {
    throw new ConflictError(
      `Reservation ${before.id} changed concurrently; try again`,
    );
  }
  const after = toReservationRecord(
    (await tx<ReservationRow>('reservations')
      .where({ id: before.id })
      .first())!,
  );
  await writeAuditEvent(tx, {
    actor,
    action: state === 'held' ? 'reservation.hold' : 'reservation.release',
    subjectType: 'reservation',
    subjectId: before.id,
    team: before.team,
    before,
    after,
  });
  return after;
}

/**
 * Releases whatever the service holds or waits for, and withdraws approvals that
 * were waiting on a released reservation. Returns what it released.
 */
export async function releaseServiceReservations(
  tx: Knex.Transaction,
  service: ServiceRecord,
  actor: string,
  now: Date,
): Promise<ReservationRecord[]> {
  const open = (
    await tx<ReservationRow>('reservations')
      .where({ service_id: service.id })
      .whereIn('state', ['held', 'pending'])
      .orderBy('created_at', 'asc')
  ).map(toReservationRecord);
  const released: ReservationRecord[] = [];
  for (const reservation of open) {
    released.push(
      await setReservationState(tx, reservation, 'released', actor, now),
    );
    const waiting = await tx<ApprovalRow>('approvals')
      .where({ reservation_id: reservation.id, state: 'pending' })
      .first();
    if (waiting) {
      await setApprovalState(
        tx,
        toApprovalRecord(waiting),
        'rejected',
        actor,
        now,
        'Withdrawn: the reservation was released',
      );
    }
  }
  return released;
}

/** A service's reservations, newest first. */
export async function listServiceReservations(
  db: Knex,
  serviceId: string,
): Promise<ReservationRecord[]> {
  if (!isUuid(serviceId)) {
    return [];
  }
  const rows = await db<ReservationRow>('reservations')
    .where({ service_id: serviceId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ]);
  return rows.map(toReservationRecord);
}
