import type { ReservationRecord } from '../database/types';
import { Interval, union } from './accrual';

/**
 * The time within `[startMs, endMs)` a service's usage is measured over: when some reservation of it was held and it
 * spent (`spending`: ran, in apply mode; always in GitOps mode; never in a dry run), as sorted disjoint intervals.
 * Allocation cost covers exactly this time, so usage, idle and coverage are defined over it too.
 */
export function heldSpan(
  reservations: readonly ReservationRecord[],
  spending: readonly Interval[],
  startMs: number,
  endMs: number,
): Interval[] {
  const held = union(
    reservations
      .filter(r => r.heldAt)
      .map(
        r =>
          [
            Math.max(startMs, Date.parse(r.heldAt!)),
            Math.min(endMs, r.releasedAt ? Date.parse(r.releasedAt) : Infinity),
          ] as Interval,
      ),
  );
  const result: Interval[] = [];
  for (const [from, to] of held) {
    for (const [start, end] of spending) {
      const begin = Math.max(from, start);
      const finish = Math.min(to, end);
      if (finish > begin) result.push([begin, finish]);
    }
  }
  return union(result);
}

/** Milliseconds of `span` within `[from, to)`. */
export function spanOverlapMs(
  span: readonly Interval[],
  from: number,
  to: number,
): number {
  let total = 0;
  for (const [start, end] of span) {
    const overlap = Math.min(to, end) - Math.max(from, start);
    if (overlap > 0) total += overlap;
  }
  return total;
}

/**
 * The part (0 to 1) of the step ending at `t` (unix seconds; the step stands for `(t - step, t]`) inside `span`;
 * 1 when no span is given (the whole window).
 */
export function stepWeight(
  span: readonly Interval[] | undefined,
  t: number,
  step: number,
): number {
  if (!span) return 1;
  return spanOverlapMs(span, (t - step) * 1000, t * 1000) / (step * 1000);
}
