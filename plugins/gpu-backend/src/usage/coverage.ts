import {
  AttributedValue,
  Confidence,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The window measured: its length and the step its coverage is counted in, seconds. */
export interface AttributionWindow {
  /** Unix seconds. */
  end: number;
  seconds: number;
  step: number;
}

/** Step points of a window ending at `end`: the multiples of `step` in (end - seconds, end], at least one. */
export function stepsInWindow(window: AttributionWindow): number {
  const { end, seconds, step } = window;
  return Math.max(
    1,
    Math.floor(end / step) - Math.floor((end - seconds) / step),
  );
}

/** Coverage from which a figure keeps its confidence; below it drops one level. */
export const FULL_COVERAGE = 0.9;
/** Coverage below which a figure is `low` confidence whatever its method. */
export const SHORT_COVERAGE = 0.5;

/** A figure's confidence given the share of the window it was measured over. */
export function confidenceAt(
  confidence: Confidence,
  coverage: number | undefined,
): Confidence {
  if (coverage === undefined || coverage >= FULL_COVERAGE) return confidence;
  if (coverage < SHORT_COVERAGE) return 'low';
  return confidence === 'high' ? 'medium' : 'low';
}

/** `measured over 50% of the time it held its GPUs`, for notes. */
export function coverageNote(coverage: number): string {
  return `measured over ${Math.round(
    coverage * 100,
  )}% of the time it held its GPUs`;
}

/** Adds coverage to a figure: lowers its confidence when short and says so in its note. */
export function covered(
  value: AttributedValue,
  coverage: number | undefined,
): AttributedValue {
  if (coverage === undefined) return value;
  const short = coverage < FULL_COVERAGE;
  return {
    ...value,
    confidence: confidenceAt(value.confidence, coverage),
    coverage,
    ...(short
      ? {
          note: value.note
            ? `${value.note}; ${coverageNote(coverage)}`
            : coverageNote(coverage),
        }
      : {}),
  };
}
