import { UsdMicros } from './money';
import { heldCost, PoolPrice } from './poolPrices';
import {
  intervalOverlapMs,
  TimeInterval,
  unionOfIntervals,
} from './timeIntervals';

/**
 * What the allocation arithmetic needs of a reservation: where, how much, its monthly cost, and when it was held and
 * released (ISO 8601; a reservation never held costs nothing).
 *
 * @public
 */
export interface HeldAllocation {
  pool: string;
  gpuEquivalents: number;
  monthlyCostMicros: UsdMicros;
  heldAt?: string;
  releasedAt?: string;
}

/**
 * Allocation of reservations over a time range, and when they counted as spend.
 *
 * @public
 */
export interface AllocationInRange {
  /** Spend: held while the workload ran (see `spending` of {@link allocationInRange}). */
  allocationMicros: UsdMicros;
  /** Hours some reservation was held and spent within the range. */
  hours: number;
  /** Held while nothing ran: reserved, not spend. */
  reservedMicros: UsdMicros;
  /** Hours some reservation was held without spending within the range. */
  reservedHours: number;
  /** On spot pools: on-demand cost of the same spend minus the spot cost. */
  spotSavingMicros: UsdMicros;
  /** GPU-equivalents held at the end of the range (0 if none). */
  gpuEquivalentsAtEnd: number;
}

const ALWAYS: readonly TimeInterval[] = [[-Infinity, Infinity]];

/**
 * Allocation cost within `[startMs, endMs)`: for every reservation, the overlap of its held period with the range,
 * split into the seconds it spent (within `spending`, sorted disjoint intervals; always by default) and the rest,
 * reserved; each x GPU-equivalents x the pool's node-hour price / GPUs per node, rounded once per reservation to
 * micro-dollars ({@link heldCost}). Held seconds are rounded once and split, so spent + reserved seconds are the held
 * seconds. Reservations of unknown pools (removed from config) cost nothing and are skipped. The ledger's budgets
 * and the cost views both count with it.
 *
 * @public
 */
export function allocationInRange(
  reservations: readonly HeldAllocation[],
  prices: ReadonlyMap<string, PoolPrice>,
  startMs: number,
  endMs: number,
  spending: readonly TimeInterval[] = ALWAYS,
): AllocationInRange {
  let allocationMicros = 0;
  let reservedMicros = 0;
  let spotSavingMicros = 0;
  let gpuEquivalentsAtEnd = 0;
  const spent: TimeInterval[] = [];
  const reserved: TimeInterval[] = [];
  for (const reservation of reservations) {
    if (!reservation.heldAt) continue;
    const from = Math.max(startMs, Date.parse(reservation.heldAt));
    const releasedMs = reservation.releasedAt
      ? Date.parse(reservation.releasedAt)
      : Infinity;
    const to = Math.min(endMs, releasedMs);
    if (releasedMs >= endMs && Date.parse(reservation.heldAt) < endMs) {
      gpuEquivalentsAtEnd += reservation.gpuEquivalents;
    }
    const price = prices.get(reservation.pool);
    if (to <= from || !price) continue;
    const heldSeconds = Math.round((to - from) / 1000);
    const spentSeconds = Math.min(
      heldSeconds,
      Math.round(intervalOverlapMs(spending, from, to) / 1000),
    );
    for (const [start, end] of spending) {
      const begin = Math.max(from, start);
      const finish = Math.min(to, end);
      if (finish > begin) spent.push([begin, finish]);
    }
    reserved.push(...gaps(spending, from, to));
    const cost = heldCost(price, reservation.gpuEquivalents, spentSeconds);
    allocationMicros += cost;
    reservedMicros += heldCost(
      price,
      reservation.gpuEquivalents,
      heldSeconds - spentSeconds,
    );
    if (price.onDemand) {
      spotSavingMicros +=
        heldCost(price.onDemand, reservation.gpuEquivalents, spentSeconds) -
        cost;
    }
  }
  return {
    allocationMicros,
    hours: coveredMs(spent) / 3_600_000,
    reservedMicros,
    reservedHours: coveredMs(reserved) / 3_600_000,
    spotSavingMicros,
    gpuEquivalentsAtEnd,
  };
}

/**
 * A reservation's held period in epoch milliseconds, as the ledger reads it from its rows.
 *
 * @public
 */
export interface HeldPeriod {
  pool: string;
  gpuEquivalents: number;
  heldMs: number;
  /** Undefined while it is held. */
  releasedMs?: number;
}

/**
 * The allocation cost of held periods within `[startMs, endMs)`: what `allocationMicros` of
 * {@link allocationInRange} is when every held second spends (no `spending` intervals), with the same rounding (held
 * seconds rounded once per reservation, then {@link heldCost}), but without the hours and the timestamps to parse.
 * Budgets count a team's month with it on every quote and create.
 *
 * @public
 */
export function allocationMicrosInRange(
  periods: readonly HeldPeriod[],
  prices: ReadonlyMap<string, PoolPrice>,
  startMs: number,
  endMs: number,
): UsdMicros {
  let allocationMicros = 0;
  for (const period of periods) {
    const from = Math.max(startMs, period.heldMs);
    const to = Math.min(endMs, period.releasedMs ?? Infinity);
    const price = prices.get(period.pool);
    if (to <= from || !price) continue;
    allocationMicros += heldCost(
      price,
      period.gpuEquivalents,
      Math.round((to - from) / 1000),
    );
  }
  return allocationMicros;
}

/**
 * Monthly allocation at `atMs`: the sum of the monthly cost of the reservations held then.
 *
 * @public
 */
export function monthlyAllocationAt(
  reservations: readonly HeldAllocation[],
  atMs: number,
): UsdMicros {
  return reservations
    .filter(
      r =>
        r.heldAt &&
        Date.parse(r.heldAt) <= atMs &&
        (!r.releasedAt || Date.parse(r.releasedAt) > atMs),
    )
    .reduce((total, r) => total + r.monthlyCostMicros, 0);
}

/** The parts of `[from, to)` outside the sorted disjoint `intervals`. */
function gaps(
  intervals: readonly TimeInterval[],
  from: number,
  to: number,
): TimeInterval[] {
  const result: TimeInterval[] = [];
  let at = from;
  for (const [start, end] of intervals) {
    if (end <= at) continue;
    if (start >= to) break;
    if (start > at) result.push([at, start]);
    at = Math.max(at, end);
    if (at >= to) break;
  }
  if (at < to) result.push([at, to]);
  return result;
}

/** Milliseconds covered by the union of `intervals`. */
function coveredMs(intervals: readonly TimeInterval[]): number {
  return unionOfIntervals(intervals).reduce(
    (total, [from, to]) => total + to - from,
    0,
  );
}
