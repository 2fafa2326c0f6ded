/**
 * The step points of a window ending at `end` (unix seconds) of `seconds`: the multiples of `step` in
 * (end - seconds, end], each standing for the step before it, (t - step, t]. The same points as the subquery step
 * counts (`[window:step]` aligns to multiples of the step), so coverage and step-by-step attribution count the same
 * steps. A window shorter than its step gets the one point `end`.
 */
export interface StepGrid {
  start: number;
  end: number;
  step: number;
  times: number[];
}

export function stepGrid(end: number, seconds: number, step: number): StepGrid {
  const first = (Math.floor((end - seconds) / step) + 1) * step;
  const last = Math.floor(end / step) * step;
  if (last < first) return { start: end, end, step, times: [end] };
  const times: number[] = [];
  for (let t = first; t <= last; t += step) times.push(t);
  return { start: first, end: last, step, times };
}
