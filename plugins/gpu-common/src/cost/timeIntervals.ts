/**
 * A time interval `[from, to)` in epoch milliseconds.
 *
 * @public
 */
export type TimeInterval = readonly [number, number];

/**
 * Sorted, disjoint intervals covering the same time as `intervals`.
 *
 * @public
 */
export function unionOfIntervals(
  intervals: readonly TimeInterval[],
): TimeInterval[] {
  const sorted = intervals
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  const result: Array<[number, number]> = [];
  for (const [from, to] of sorted) {
    const last = result[result.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else result.push([from, to]);
  }
  return result;
}

/**
 * Milliseconds of `[from, to)` covered by the sorted disjoint `intervals`.
 *
 * @public
 */
export function intervalOverlapMs(
  intervals: readonly TimeInterval[],
  from: number,
  to: number,
): number {
  let total = 0;
  for (const [start, end] of intervals) {
    const begin = Math.max(from, start);
    const finish = Math.min(to, end);
    if (finish > begin) total += finish - begin;
  }
  return total;
}
