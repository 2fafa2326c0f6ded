/** The q-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) {
    return NaN;
  }
  const rank = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil(q * sorted.length) - 1),
  );
  return sorted[rank];
}

/**
 * Times each function `iterations` times after `warmup` unmeasured rounds, calling them in turn within every round so
 * that machine noise (GC, other processes) hits all of them alike. Returns per-call microseconds, sorted, per function.
 */
export function timeInterleaved(
  fns: ReadonlyArray<() => unknown>,
  iterations: number,
  warmup: number,
): number[][] {
  const samples = fns.map(() => new Array<number>(iterations));
  let sink = 0;
  for (let round = -warmup; round < iterations; round++) {
    for (let f = 0; f < fns.length; f++) {
      const start = process.hrtime.bigint();
      const result = fns[f]();
      const elapsed = Number(process.hrtime.bigint() - start) / 1000;
      sink += result === undefined ? 0 : 1;
      if (round >= 0) {
        samples[f][round] = elapsed;
      }
    }
  }
  if (sink < 0) {
    process.stdout.write('');
  }
  return samples.map(s => s.sort((a, b) => a - b));
}

/** Count, median, p95, min and max of the values, rounded to thousandths. */
export function summary(values: readonly number[]) {
  const { p99: _, ...rest } = summaryWithP99(values);
  return rest;
}

/** {@link summary} with the p99 too. */
export function summaryWithP99(values: readonly number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    n: sorted.length,
    median: round(quantile(sorted, 0.5)),
    p95: round(quantile(sorted, 0.95)),
    p99: round(quantile(sorted, 0.99)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1]),
  };
}

/** Runs `task(0..count-1)` with at most `limit` at a time; the first failure rejects. */
export async function inParallel(
  count: number,
  limit: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}
