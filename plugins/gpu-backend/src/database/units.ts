import { InputError } from '@backstage/errors';

/**
 * GPU amounts are stored as integers in units of 1/5040 GPU-equivalent. 5040 (7!)
 * is divisible by 1 to 10, 12, 14, 15, 16, 18, 20, 21, 24, 28, 30, 35, 36, 40, 42,
 * 45, 48, ..., so MIG sevenths, A30 quarters and the usual sharing replica counts
 * add up exactly; seven 1/7 slices fill one GPU.
 */
export const GPU_UNITS_PER_EQUIVALENT = 5040;

/** Converts GPU-equivalents to stored units; throws `InputError` unless positive and finite. */
export function toGpuUnits(gpuEquivalents: number, what: string): number {
  if (!Number.isFinite(gpuEquivalents) || gpuEquivalents < 0) {
    throw new InputError(
      `${what} must be a finite number of GPU-equivalents, zero or more; got ${gpuEquivalents}`,
    );
  }
  const units = Math.round(gpuEquivalents * GPU_UNITS_PER_EQUIVALENT);
  if (!Number.isSafeInteger(units)) {
    throw new InputError(`${what} is too large: ${gpuEquivalents}`);
  }
  return units;
}

/** Converts stored units back to GPU-equivalents. */
export function fromGpuUnits(units: number): number {
  return units / GPU_UNITS_PER_EQUIVALENT;
}

/** Checks an amount of micro-dollars; throws `InputError` unless a non-negative safe integer. */
export function checkMicros(micros: number, what: string): number {
  if (!Number.isSafeInteger(micros) || micros < 0) {
    throw new InputError(
      `${what} must be a whole number of micro-dollars between 0 and ${Number.MAX_SAFE_INTEGER}; got ${micros}`,
    );
  }
  return micros;
}

/**
 * Reads an integer column or aggregate. PostgreSQL returns `bigint` and `sum()` as
 * strings; SQLite returns numbers; an empty `sum()` is null.
 */
export function readInteger(value: unknown): number {
  if (value === null || value === undefined) {
    return 0;
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) {
    throw new Error(`Stored amount ${String(value)} is not a safe integer`);
  }
  return n;
}

/** Formats micro-dollars as a dollar amount for messages, e.g. `$1,234.56`. */
export function formatMicros(micros: number): string {
  return `$${(micros / 1_000_000).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  })}`;
}

/** Formats GPU units as GPU-equivalents for messages, e.g. `1.5`. */
export function formatGpuUnits(units: number): string {
  return String(Math.round(fromGpuUnits(units) * 1000) / 1000);
}
