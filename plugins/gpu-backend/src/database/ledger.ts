import { ConflictError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';

import { setApprovalState } from './approvals';
import { AuditInput, writeAuditEvent } from './audit';
import {
  ApprovalRow,
  PoolQuotaRow,
  ReservationRow,
  TeamQuotaRow,
  toApprovalRecord,
  toReservationRecord,
} from './rows';
import { isUuid } from './services';
import { POOL_LOCK_SQL, poolLockKey } from './poolLock';
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

/**
 * Locks the team's quota row (PostgreSQL) and reads the pool's allowance in the same statement: the team's requests
 * wait for this lock one after another, so every round trip while it is held counts for all of them.
 */
export async function lockLedger(
  tx: Knex.Transaction,
  team: string,
  pool: string,
): Promise<LedgerAllowance> {
  const query = ledgerQuery(tx, team, pool);
  const row = await (isPostgres(tx) ? query.forUpdate('team_quotas') : query);
  // Without a pool row the join leaves nominal_gpu_units null: no allowance there, as for a missing row.
  return allowanceOf(team, pool, row, row);
}

/**
 * {@link lockLedger}, then the pool's lock ({@link lockPool}), in that order and in one statement on PostgreSQL: the
 * pool's advisory lock is taken as the row of the team's locked quota row (or of none) is projected.
 */
export async function lockLedgerAndPool(
  tx: Knex.Transaction,
  team: string,
  pool: string,
): Promise<LedgerAllowance> {
  if (!isPostgres(tx)) {
    return lockLedger(tx, team, pool);
  }
  const { rows } = await lockLedgerAndPoolStatement(tx, team, pool);
  return allowanceOfLockRow(team, pool, rows);
}

/** PostgreSQL: the statement of {@link lockLedgerAndPool}, for a caller that sends it itself (`backToBack`). */
export function lockLedgerAndPoolStatement(
  tx: Knex.Transaction,
  team: string,
  pool: string,
): Knex.Raw<{ rows: LedgerRow[] }> {
  return tx.raw<{ rows: LedgerRow[] }>(
    `select ledger.monthly_budget_micros, ledger.nominal_gpu_units, ${POOL_LOCK_SQL} as pool_locked
     from (values (1)) as one left join lateral (?) as ledger on true`,
    [poolLockKey(pool), ledgerQuery(tx, team, pool).forUpdate('team_quotas')],
  );
}

/** The allowance from the rows {@link lockLedgerAndPoolStatement} answered. */
export function allowanceOfLockRow(
  team: string,
  pool: string,
  [row]: readonly Partial<LedgerRow>[],
): LedgerAllowance {
  return allowanceOf(
    team,
    pool,
    row?.monthly_budget_micros !== undefined &&
      row.monthly_budget_micros !== null
      ? { monthly_budget_micros: row.monthly_budget_micros }
      : undefined,
    { nominal_gpu_units: row?.nominal_gpu_units ?? null },
  );
}

type LedgerRow = {
  monthly_budget_micros: TeamQuotaRow['monthly_budget_micros'];
  nominal_gpu_units: PoolQuotaRow['nominal_gpu_units'] | null;
};

/** The team's quota row with its row for the pool, if any. */
function ledgerQuery(tx: Knex.Transaction, team: string, pool: string) {
  return tx<TeamQuotaRow>('team_quotas')
    .leftJoin<PoolQuotaRow>('pool_quotas', join =>
      join
        .on('pool_quotas.team', 'team_quotas.team')
        .andOnVal('pool_quotas.pool', pool),
    )
    .where('team_quotas.team', team)
    .first<LedgerRow | undefined>(
      'team_quotas.monthly_budget_micros',
      'pool_quotas.nominal_gpu_units',
    );
}

/** The team's allowance on the pool from its quota rows (no quota at all without the team's row). */
export function allowanceOf(
  team: string,
  pool: string,
  teamRow: Pick<TeamQuotaRow, 'monthly_budget_micros'> | undefined,
  poolRow:
    | { nominal_gpu_units: PoolQuotaRow['nominal_gpu_units'] | null }
    | undefined,
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
  return withHeldOf(
    ledger,
    await heldOfTeamQuery(tx, ledger, excludeReservationId),
  );
}

/** The read {@link withHeld} makes: one row of the team's held units on the ledger's pool and monthly cost. */
export function heldOfTeamQuery(
  tx: Knex | Knex.Transaction,
  ledger: Pick<LedgerAllowance, 'team' | 'pool'>,
  excludeReservationId?: string,
): Knex.QueryBuilder {
  const held = tx('reservations').where({ team: ledger.team, state: 'held' });
  return (
    excludeReservationId ? held.whereNot('id', excludeReservationId) : held
  ).select(
    tx.raw('sum(case when ?? = ? then ?? else 0 end) as ??', [
      'pool',
      ledger.pool,
      'gpu_units',
      'units',
    ]),
    tx.raw('sum(??) as ??', ['monthly_cost_micros', 'cost']),
  );
}

/** The row {@link heldOfTeamQuery} answers (sums are strings, numbers or null as the driver gives them). */
export interface HeldOfTeamRow {
  units: unknown;
  cost: unknown;
}

/** The ledger with what {@link heldOfTeamQuery} answered. */
export function withHeldOf(
  ledger: LedgerAllowance,
  [sums]: readonly HeldOfTeamRow[],
): LedgerSnapshot {
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

/** What a new reservation of a service is recorded with. */
export interface NewReservation {
  service: ServiceRecord;
  pool: string;
  /** The MIG profile of the placement it holds (the service's, or its change's); undefined outside the mig tier. */
  migProfile: string | undefined;
  amounts: Amounts;
  state: 'pending' | 'held';
  now: Date;
  actor: string;
}

/** Inserts a reservation and audits it. */
export async function insertReservation(
  tx: Knex.Transaction,
  options: NewReservation,
): Promise<ReservationRecord> {
  const row = newReservationRow(options);
  await tx<ReservationRow>('reservations').insert(row);
  const reservation = toReservationRecord(row);
  await writeAuditEvent(tx, reservationAuditEvent(reservation, options.actor));
  return reservation;
}

/** The row of a new reservation (held from `now`, or pending). */
export function newReservationRow(options: NewReservation): ReservationRow {
  const { service, amounts, state, now } = options;
  return {
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
}

/** The audit event of a new reservation: held, or requested (pending). */
export function reservationAuditEvent(
  reservation: ReservationRecord,
  actor: string,
): AuditInput {
  return {
    actor,
    action:
      reservation.state === 'held' ? 'reservation.hold' : 'reservation.request',
    subjectType: 'reservation',
    subjectId: reservation.id,
    team: reservation.team,
    after: reservation,
  };
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
