import {
  allocationInRange,
  HeldAllocation,
  MonthSpend,
  PoolPrice,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';

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

/** A reservation as month spend counts it: its allocation, and whether it is held now. */
export interface SpendingReservation extends HeldAllocation {
  id: string;
  state: string;
}

/**
 * The team's spend this calendar month, with the allocation cost the cost views use (`allocationInRange`: each
 * reservation's held time within the range x GPU-equivalents x the pool's price): month-to-date is every reservation
 * held at some point since the start of the month (released ones included) from the start of the month, or its hold
 * time, until now; the rest of the month is what is held now until the end of the month, leaving out
 * `excludeReservationId` (the reservation a change gives back, which stops costing now).
 */
export function monthSpendOf(
  reservations: readonly SpendingReservation[],
  prices: ReadonlyMap<string, PoolPrice>,
  now: Date,
  excludeReservationId?: string,
): MonthSpend {
  const { month, startMs, endMs } = monthOf(now);
  const nowMs = now.getTime();
  return {
    month,
    monthToDate: allocationInRange(reservations, prices, startMs, nowMs)
      .allocationMicros,
    heldRestOfMonth: allocationInRange(
      reservations.filter(
        r => r.state === 'held' && r.id !== excludeReservationId,
      ),
      prices,
      nowMs,
      endMs,
    ).allocationMicros,
    secondsLeft: Math.max(0, Math.round((endMs - nowMs) / 1000)),
  };
}

/** What holding `gpuEquivalents` on the pool from now costs until the end of the month, with the same formula. */
export function restOfMonthCost(
  prices: ReadonlyMap<string, PoolPrice>,
  pool: string,
  gpuEquivalents: number,
  now: Date,
): number {
  const { endMs } = monthOf(now);
  return allocationInRange(
    [
      {
        pool,
        gpuEquivalents,
        monthlyCostMicros: 0,
        heldAt: now.toISOString(),
      },
    ],
    prices,
    now.getTime(),
    endMs,
  ).allocationMicros;
}
