import { InputError } from '@backstage/errors';
import {
  formatGpuUnits,
  GPU_UNITS_PER_EQUIVALENT,
  gpuEquivalentsOf,
  gpuUnitsOf,
} from '@gpu-platform/backstage-plugin-gpu-common';

// GPU amounts are stored as integers in gpu-common's GPU units (1/5040 GPU-equivalent).
export { formatGpuUnits, GPU_UNITS_PER_EQUIVALENT };

/** Converts GPU-equivalents to stored units; an `InputError` (gpu-common's `GpuDomainError`) unless zero or more and finite. */
export const toGpuUnits = gpuUnitsOf;

/** Converts stored units back to GPU-equivalents (gpu-common's `gpuEquivalentsOf`). */
export const fromGpuUnits = gpuEquivalentsOf;

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

export { formatMicros } from '../admission/formatMicros';
