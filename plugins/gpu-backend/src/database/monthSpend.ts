import { MonthSpend } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { allocationInRange } from '../usage/allocation';
import { GovernanceContext } from './governance';
import { ReservationRow, toReservationRecord } from './rows';
import { ReservationRecord } from './types';
import { fromGpuUnits } from './units';

/** The calendar month (UTC, as the cost views count it) that `now` is in. */
export function monthOf(now: Date): {
  month: string;
  startMs: number;
  endMs: number;
} {
  const at = DateTime.fromJSDate(now, { zone: 'utc' });
  const start = at.startOf('month');
  return {
    month: start.toFormat('yyyy-MM'),
    startMs: start.toMillis(),
    endMs: start.plus({ months: 1 }).toMillis(),
  };
}

/**
 * The team's spend this calendar month from the ledger, with the allocation cost the cost views use
 * (`allocationInRange`: each reservation's held time within the range x GPU-equivalents x the pool's price):
 * month-to-date is every reservation held at some point since the start of the month (released ones included) from
 * the start of the month, or its hold time, until now; the rest of the month is what is held now until the end of
 * the month, leaving out `excludeReservationId` (the reservation a change gives back, which stops costing now).
 */
export async function readMonthSpend(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  team: string,
  now: Date,
  excludeReservationId?: string,
): Promise<MonthSpend> {
  const { month, startMs, endMs } = monthOf(now);
  const rows = await db<ReservationRow>('reservations')
    .where({ team })
    .whereNotNull('held_at')
    .where(q =>
      q.whereNull('released_at').orWhere('released_at', '>', new Date(startMs)),
    );
  const reservations = rows.map(toReservationRecord);
  const nowMs = now.getTime();
  return {
    month,
    monthToDate: allocationInRange(reservations, context.prices, startMs, nowMs)
      .allocationMicros,
    heldRestOfMonth: allocationInRange(
      reservations.filter(
        r => r.state === 'held' && r.id !== excludeReservationId,
      ),
      context.prices,
      nowMs,
      endMs,
    ).allocationMicros,
    secondsLeft: Math.max(0, Math.round((endMs - nowMs) / 1000)),
  };
}

/** What holding `gpuUnits` on the pool from now costs until the end of the month, with the same formula. */
export function restOfMonthCost(
  context: GovernanceContext,
  pool: string,
  gpuUnits: number,
  now: Date,
): number {
  const { endMs } = monthOf(now);
  const held: ReservationRecord = {
    id: 'request',
    serviceId: 'request',
    team: '',
    pool,
    gpuEquivalents: fromGpuUnits(gpuUnits),
    monthlyCostMicros: 0,
    state: 'held',
    createdAt: now.toISOString(),
    heldAt: now.toISOString(),
  };
  return allocationInRange([held], context.prices, now.getTime(), endMs)
    .allocationMicros;
}
