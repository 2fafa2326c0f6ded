import {
  allocationMicrosInRange,
  heldCost,
  HeldPeriod,
  MonthSpend,
  PoolPrice,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The calendar month (UTC, as the cost views count it) that `now` is in. Plain UTC date arithmetic: every create and
 * quote works the month out, so no time-zone library here.
 */
export function monthOf(now: Date): {
  month: string;
  startMs: number;
  endMs: number;
} {
  const year = now.getUTCFullYear();
  const monthIndex = now.getUTCMonth();
  return {
    month: `${String(year).padStart(4, '0')}-${String(monthIndex + 1).padStart(
      2,
      '0',
    )}`,
    startMs: Date.UTC(year, monthIndex, 1),
    endMs: Date.UTC(year, monthIndex + 1, 1),
  };
}

/** A reservation as month spend counts it: its held period, and whether it is held now. */
export interface SpendingReservation extends HeldPeriod {
  id: string;
  state: string;
}

/**
 * The team's spend this calendar month, with the allocation cost the cost views use (`allocationMicrosInRange`: each
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
    monthToDate: allocationMicrosInRange(reservations, prices, startMs, nowMs),
    heldRestOfMonth: allocationMicrosInRange(
      reservations.filter(
        r => r.state === 'held' && r.id !== excludeReservationId,
      ),
      prices,
      nowMs,
      endMs,
    ),
    secondsLeft: secondsLeftOfMonth(endMs, nowMs),
  };
}

/**
 * Reservations of one pool and size that cost the same this month: held the same whole seconds from the start of the
 * month (or their hold) until now, and the same from now until the end of the month (0 when not held now, or left
 * out).
 */
export interface HeldSecondsGroup {
  pool: string;
  gpuEquivalents: number;
  reservations: number;
  spentSeconds: number;
  restSeconds: number;
}

/**
 * {@link monthSpendOf} from reservations counted in groups: each group's seconds already rounded as
 * `allocationMicrosInRange` rounds a reservation's, so a group costs its count times one reservation's cost.
 */
export function monthSpendOfGroups(
  groups: readonly HeldSecondsGroup[],
  prices: ReadonlyMap<string, PoolPrice>,
  now: Date,
): MonthSpend {
  const { month, endMs } = monthOf(now);
  let monthToDate = 0;
  let heldRestOfMonth = 0;
  for (const group of groups) {
    const price = prices.get(group.pool);
    if (!price) continue;
    monthToDate +=
      group.reservations *
      heldCost(price, group.gpuEquivalents, group.spentSeconds);
    heldRestOfMonth +=
      group.reservations *
      heldCost(price, group.gpuEquivalents, group.restSeconds);
  }
  return {
    month,
    monthToDate,
    heldRestOfMonth,
    secondsLeft: secondsLeftOfMonth(endMs, now.getTime()),
  };
}

/** Whole seconds from `nowMs` to the end of the month, `endMs`. */
function secondsLeftOfMonth(endMs: number, nowMs: number): number {
  return Math.max(0, Math.round((endMs - nowMs) / 1000));
}

/** What holding `gpuEquivalents` on the pool from now costs until the end of the month, with the same formula. */
export function restOfMonthCost(
  prices: ReadonlyMap<string, PoolPrice>,
  pool: string,
  gpuEquivalents: number,
  now: Date,
): number {
  const { endMs } = monthOf(now);
  const nowMs = now.getTime();
  return allocationMicrosInRange(
    [{ pool, gpuEquivalents, heldMs: nowMs }],
    prices,
    nowMs,
    endMs,
  );
}

/**
 * The month spend read at `now` with one more reservation held from `now`: what {@link monthSpendOf} answers at the
 * same time once that reservation is stored (it adds only to the rest of the month).
 */
export function monthSpendWithHold(
  month: MonthSpend,
  prices: ReadonlyMap<string, PoolPrice>,
  pool: string,
  gpuEquivalents: number,
  now: Date,
): MonthSpend {
  return {
    ...month,
    heldRestOfMonth:
      month.heldRestOfMonth +
      restOfMonthCost(prices, pool, gpuEquivalents, now),
  };
}
