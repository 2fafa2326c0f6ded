import type { Interval } from './accrual';
import { stepWeight } from './heldSpan';
import { SampledMetric, StepSamples } from './stepSamples';

/** The steps the step samples were read at: `times` end at the window's end, each standing for `(t - step, t]`. */
export interface SampleGrid {
  times: number[];
  step: number;
  /** The exporter's sample interval, seconds (`sampleInterval`). */
  interval: number;
}

/** A service's DCGM figure over the time it held its GPUs, at the resolution of the samples. */
export interface SpanFigure {
  /** Mean of the samples inside the span, 0 to 1 (undefined without samples). */
  value?: number;
  /** Sampled time / (replicas x the span): 0 to 1. */
  coverage: number;
  /** Most series (GPUs or MIG instances) one pod had sampled at one step of the span. */
  seriesPerPod: number;
  /** Seconds of the span (within the grid). */
  spanSeconds: number;
}

/**
 * One figure (`util`, percent, or `engine`, 0 to 1) of one service's DCGM series over its `span` (the whole window
 * when absent): each step counts for the part of it inside the span. A pod's samples in a step are those of its
 * series with the most (its GPUs are sampled together); its value the mean of its series' means. Gaps inside the
 * span are missing samples: they lower coverage and are never counted as busy.
 */
export function spanFigure(
  samples: StepSamples[],
  metric: SampledMetric,
  span: readonly Interval[] | undefined,
  grid: SampleGrid,
  replicas: number,
): SpanFigure {
  const byPod = new Map<string, StepSamples[]>();
  for (const s of samples) {
    if (s.metric !== metric) continue;
    const k = `${s.namespace}/${s.pod}`;
    const list = byPod.get(k);
    if (list) list.push(s);
    else byPod.set(k, [s]);
  }
  const pods = [...byPod.values()];
  const scale = metric === 'util' ? 1 / 100 : 1;
  const perStep = grid.step / grid.interval;
  let busy = 0;
  let sampled = 0;
  let steps = 0;
  let seriesPerPod = 0;
  // Every step of every pod, no array built per step (an overview reads hundreds of thousands of them).
  for (const t of grid.times) {
    const w = stepWeight(span, t, grid.step);
    if (w <= 0) continue;
    steps += w;
    for (const list of pods) {
      let n = 0;
      let series = 0;
      let meansTotal = 0;
      for (const s of list) {
        const count = s.counts.get(t) ?? 0;
        const sum = s.sums.get(t);
        if (count <= 0 || sum === undefined) continue;
        series += 1;
        n = Math.max(n, count);
        meansTotal += Math.min(1, Math.max(0, (sum / count) * scale));
      }
      if (n === 0) continue;
      seriesPerPod = Math.max(seriesPerPod, series);
      const mean = meansTotal / series;
      // A step partly inside the span holds at most that part's samples: all of them when the pod ran only then.
      const inside = w >= 1 ? n : Math.min(n, w * perStep);
      busy += inside * mean;
      sampled += inside;
    }
  }
  const capacity = Math.max(1, replicas) * perStep * steps;
  return {
    ...(sampled > 0 ? { value: busy / sampled } : {}),
    coverage: capacity > 0 ? Math.min(1, sampled / capacity) : 0,
    seriesPerPod,
    spanSeconds: steps * grid.step,
  };
}

/** The grid of a range query of `seconds` ending at `end` (unix seconds): points end, end - step, ... after the start. */
export function endAlignedGrid(
  end: number,
  seconds: number,
  step: number,
): { start: number; end: number; step: number; times: number[] } {
  const points = Math.max(1, Math.ceil(seconds / step));
  const times: number[] = [];
  for (let i = points - 1; i >= 0; i--) times.push(end - i * step);
  return { start: times[0], end, step, times };
}
