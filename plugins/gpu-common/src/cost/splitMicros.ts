import { GpuDomainError } from '../errors';
import { UsdMicros } from './money';

/**
 * Splits `total` micro-dollars into parts proportional to integer `weights`, by largest remainder, so the parts are
 * whole micro-dollars that add up to `total` exactly (ties go to the earlier part).
 *
 * @throws GpuDomainError `OUT_OF_RANGE` when a weight is negative or not an integer, they sum to 0, or `total` is not a
 *   whole number of micro-dollars of 0 or more.
 * @public
 */
export function splitMicros(
  total: UsdMicros,
  weights: readonly number[],
): UsdMicros[] {
  if (!Number.isSafeInteger(total) || total < 0) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `Cannot split ${total}: not a whole number of micro-dollars of 0 or more`,
    );
  }
  if (weights.some(w => !Number.isSafeInteger(w) || w < 0)) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `Cannot split by weights ${weights.join(
        ', ',
      )}: each must be a whole number of 0 or more`,
    );
  }
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      'Cannot split by weights that add up to 0',
    );
  }
  const big = BigInt(total);
  const parts = weights.map(w => {
    const product = big * BigInt(w);
    return {
      share: product / BigInt(sum),
      remainder: product % BigInt(sum),
    };
  });
  let left = big - parts.reduce((a, p) => a + p.share, 0n);
  // Largest remainder first; ties to the earlier part.
  const order = parts
    .map((_, i) => i)
    .sort((a, b) => {
      if (parts[a].remainder === parts[b].remainder) return a - b;
      return parts[b].remainder > parts[a].remainder ? 1 : -1;
    });
  for (const i of order) {
    if (left === 0n) break;
    parts[i].share += 1n;
    left -= 1n;
  }
  return parts.map(p => Number(p.share));
}
