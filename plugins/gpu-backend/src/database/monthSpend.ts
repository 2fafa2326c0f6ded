import { MonthSpend } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  GovernanceContext,
  monthOf,
  monthSpendOfGroups,
  SpendingReservation,
} from '../admission';
import { ReservationRow, toMs } from './rows';
import { isPostgres } from './transactions';
import { fromGpuUnits, readInteger } from './units';

/**
 * The team's spend this calendar month from the ledger (admission's `monthSpendOf` over every reservation of the
 * team held at some point since the start of the month), leaving `excludeReservationId` (the reservation a change
 * gives back) out of the rest of the month.
 *
 * Every create and quote reads it, so the database does the counting: each reservation's held seconds this month and
 * for the rest of it, rounded as `allocationMicrosInRange` rounds them, summed into one row per pool, size and
 * seconds. Reservations held the same seconds cost the same, so a team answers with as many rows as it has distinct
 * held periods, not one per reservation, and no timestamps or ids to parse.
 */
export async function readMonthSpend(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  team: string,
  now: Date,
  excludeReservationId?: string,
): Promise<MonthSpend> {
  return monthSpendOfRows(
    await monthSpendQuery(db, team, now, excludeReservationId),
    context,
    now,
  );
}

/** The read {@link readMonthSpend} makes: one row per pool, size and held seconds. */
export function monthSpendQuery(
  db: Knex | Knex.Transaction,
  team: string,
  now: Date,
  excludeReservationId?: string,
): Knex.QueryBuilder {
  const { startMs, endMs } = monthOf(now);
  const held = epochMsSql(db, 'held_at');
  const released = epochMsSql(db, 'released_at');
  // Math.round of a positive whole number of milliseconds over 1000 is (ms + 500) / 1000 in integers.
  const seconds = (from: string, to: string) =>
    `case when ${to} > ${from} then (${to} - ${from} + 500) / 1000 else 0 end`;
  const later = (a: string, b: string) =>
    `case when ${a} > ${b} then ${a} else ${b} end`;
  const [start, nowMs, end] = [':start', ':now', ':end'].map(
    binding => `cast(${binding} as bigint)`,
  );
  const spentFrom = later(held, start);
  const spentTo = `case when ${released} is null or ${released} > ${nowMs} then ${nowMs} else ${released} end`;
  const restTo = `case when ${released} is null or ${released} > ${end} then ${end} else ${released} end`;
  const holdsRest = excludeReservationId
    ? `state = 'held' and id <> :exclude`
    : `state = 'held'`;
  const spending = db.raw(
    `(select pool, gpu_units,
        ${seconds(spentFrom, spentTo)} as spent_seconds,
        case when ${holdsRest} then ${seconds(
      later(held, nowMs),
      restTo,
    )} else 0 end as rest_seconds
      from reservations
      where team = :team and held_at is not null and (released_at is null or released_at > :monthStart)
    ) as spending`,
    {
      team,
      monthStart: new Date(startMs),
      exclude: excludeReservationId ?? null,
      start: startMs,
      now: now.getTime(),
      end: endMs,
    },
  );
  return db
    .from(spending)
    .select('pool', 'gpu_units', 'spent_seconds', 'rest_seconds')
    .count({ reservations: '*' })
    .groupBy('pool', 'gpu_units', 'spent_seconds', 'rest_seconds');
}

/** A row {@link monthSpendQuery} answers (integers as strings or numbers, as the driver gives them). */
export interface MonthSpendRow {
  pool: string;
  gpu_units: unknown;
  spent_seconds: unknown;
  rest_seconds: unknown;
  reservations: unknown;
}

/** The month spend from what {@link monthSpendQuery} answered. */
export function monthSpendOfRows(
  rows: readonly MonthSpendRow[],
  context: GovernanceContext,
  now: Date,
): MonthSpend {
  return monthSpendOfGroups(
    rows.map(row => ({
      pool: row.pool,
      gpuEquivalents: fromGpuUnits(readInteger(row.gpu_units)),
      reservations: readInteger(row.reservations),
      spentSeconds: readInteger(row.spent_seconds),
      restSeconds: readInteger(row.rest_seconds),
    })),
    context.prices,
    now,
  );
}

/**
 * A timestamp column as whole epoch milliseconds in SQL: PostgreSQL keeps `timestamptz`, SQLite the milliseconds
 * knex wrote.
 */
function epochMsSql(db: Knex, column: 'held_at' | 'released_at'): string {
  return isPostgres(db)
    ? `cast(round(extract(epoch from ${column}) * 1000) as bigint)`
    : `cast(${column} as bigint)`;
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
