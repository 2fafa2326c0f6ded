import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { scaleUsd } from './scaleUsd';

/**
 * An allocation cost split into the part that did work and the idle rest; `usage + idle === allocation` exactly.
 *
 * @public
 */
export interface CostBreakdown {
  /** What the GPUs cost while held (share x GPU-hour price x hours). */
  allocation: UsdMicros;
  /** Allocation x utilisation. */
  usage: UsdMicros;
  /** Allocation - usage. */
  idle: UsdMicros;
}

/**
 * Usage cost: allocation x utilisation (0 to 1), rounded half-to-even to micro-dollars.
 *
 * @throws InputError when utilisation is outside 0 to 1.
 * @public
 */
export function usageCost(
  allocation: UsdMicros,
  utilisation: number,
): UsdMicros {
  if (!(utilisation >= 0 && utilisation <= 1)) {
    throw new InputError(
      `Invalid utilisation ${utilisation}: expected a fraction from 0 to 1`,
    );
  }
  return scaleUsd(allocation, [utilisation]);
}

/**
 * Splits an allocation cost into usage and idle cost by utilisation (0 to 1). Idle is the exact remainder.
 *
 * @throws InputError when utilisation is outside 0 to 1.
 * @public
 */
export function costBreakdown(
  allocation: UsdMicros,
  utilisation: number,
): CostBreakdown {
  const usage = usageCost(allocation, utilisation);
  return { allocation, usage, idle: allocation - usage };
}
