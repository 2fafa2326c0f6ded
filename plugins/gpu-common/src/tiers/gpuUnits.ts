import { GpuDomainError } from '../errors';

/**
 * GPU amounts are integers in units of 1/5040 GPU-equivalent. 5040 (7!) is divisible by 1 to 10, 12, 14, 15, 16,
 * 18, 20, 21, 24, 28, 30, 35, 36, 40, 42, 45, 48, ..., so MIG sevenths and eighths, A30 quarters and the usual
 * sharing replica counts add up exactly; seven 1/7 slices fill one GPU. The store, the quote, the quota rule and the
 * Kueue quota all count in these units.
 *
 * @public
 */
export const GPU_UNITS_PER_EQUIVALENT = 5040;

/**
 * GPU units of `gpuEquivalents` (rounded to the nearest unit).
 *
 * @throws GpuDomainError `OUT_OF_RANGE` unless a finite number of zero or more whose units are a safe integer, or
 *   for an amount above zero that would round to no unit at all (below half a unit).
 * @public
 */
export function gpuUnitsOf(gpuEquivalents: number, what: string): number {
  if (!Number.isFinite(gpuEquivalents) || gpuEquivalents < 0) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `${what} must be a finite number of GPU-equivalents, zero or more; got ${gpuEquivalents}`,
    );
  }
  const units = Math.round(gpuEquivalents * GPU_UNITS_PER_EQUIVALENT);
  if (units === 0 && gpuEquivalents > 0) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `${what} is below the smallest amount, 1/${GPU_UNITS_PER_EQUIVALENT} GPU-equivalent (about ${(
        1 / GPU_UNITS_PER_EQUIVALENT
      ).toPrecision(3)}): give 0 or at least that; got ${gpuEquivalents}`,
    );
  }
  if (!Number.isSafeInteger(units)) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `${what} is too large: ${gpuEquivalents} GPU-equivalents`,
    );
  }
  return units;
}

/**
 * GPU-equivalents of `units` (for display and API responses; arithmetic stays in units).
 *
 * @public
 */
export function gpuEquivalentsOf(units: number): number {
  return units / GPU_UNITS_PER_EQUIVALENT;
}

/**
 * GPU units as GPU-equivalents for messages, at most three decimals, e.g. `1.5`.
 *
 * @public
 */
export function formatGpuUnits(units: number): string {
  return String(Math.round(gpuEquivalentsOf(units) * 1000) / 1000);
}
