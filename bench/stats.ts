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
