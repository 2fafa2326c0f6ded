import { MonthSpend } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  GovernanceContext,
  monthOf,
  monthSpendOf,
  SpendingReservation,
} from '../admission';
import { ReservationRow, toMs } from './rows';
import { isPostgres } from './transactions';
import { fromGpuUnits, readInteger } from './units';

/**
 * The team's spend this calendar month from the ledger (admission's `monthSpendOf` over every reservation of the
 * team held at some point since the start of the month), leaving `excludeReservationId` (the reservation a change
 * gives back) out of the rest of the month.
 */
export async function readMonthSpend(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  team: string,
  now: Date,
  excludeReservationId?: string,
): Promise<MonthSpend> {
  const { startMs } = monthOf(now);
  // Only what month spend counts (every create and quote reads the team's month): no ids of services, no creation time.
  const rows: Array<
    Pick<
      ReservationRow,
      'id' | 'pool' | 'gpu_units' | 'state' | 'held_at' | 'released_at'
    >
  > = await db<ReservationRow>('reservations')
    .select(
      'id',
      'pool',
      'gpu_units',
      'state',
      epochMs(db, 'held_at'),
      epochMs(db, 'released_at'),
    )
    .where({ team })
    .whereNotNull('held_at')
    .where(q =>
      q.whereNull('released_at').orWhere('released_at', '>', new Date(startMs)),
    );
  return monthSpendOf(
    rows.map(spendingReservationOf),
    context.prices,
    now,
    excludeReservationId,
  );
}

/** A reservation row as month spend counts it (held at some point: `held_at` is set). */
export function spendingReservationOf(
  row: Pick<
    ReservationRow,
    'id' | 'pool' | 'gpu_units' | 'state' | 'held_at' | 'released_at'
  >,
): SpendingReservation {
  return {
    id: row.id,
    state: row.state,
    pool: row.pool,
    gpuEquivalents: fromGpuUnits(readInteger(row.gpu_units)),
    heldMs: toMs(row.held_at!),
    releasedMs: row.released_at === null ? undefined : toMs(row.released_at),
  };
}

/**
 * A timestamp column read as epoch milliseconds under its own name. PostgreSQL's driver otherwise parses every
 * `timestamptz` into a `Date` (a regular expression per value), which is most of reading a busy team's month there;
 * SQLite stores the milliseconds already.
 */
function epochMs(db: Knex, column: 'held_at' | 'released_at') {
  return isPostgres(db)
    ? db.raw('round(extract(epoch from ??) * 1000)::float8 as ??', [
        column,
        column,
      ])
    : column;
}
