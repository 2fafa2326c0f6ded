import { InputError } from '@backstage/errors';
import { divideHalfEven } from './divideHalfEven';
import { UsdMicros } from './money';

function assertMicros(amount: UsdMicros): void {
  if (!Number.isSafeInteger(amount)) {
    throw new InputError(
      `Invalid USD amount ${amount}: expected an integer number of micro-dollars`,
    );
  }
}

/**
 * Rounds an amount to whole cents, half-to-even.
 *
 * @public
 */
export function toCents(amount: UsdMicros): number {
  assertMicros(amount);
  return Number(divideHalfEven(BigInt(amount), 10_000n));
}

/**
 * Rounds each part to whole cents so that the rounded parts add up to the rounded total (largest remainder method):
 * a breakdown such as usage + idle = allocation then also adds up on screen.
 *
 * @public
 */
export function splitCents(parts: readonly UsdMicros[]): number[] {
  parts.forEach(assertMicros);
  const total = toCents(parts.reduce((sum, part) => sum + part, 0));
  const floors = parts.map(part => Math.floor(part / 10_000));
  let missing = total - floors.reduce((sum, cents) => sum + cents, 0);
  const byRemainder = parts
    .map((part, index) => ({ index, remainder: part - floors[index] * 10_000 }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder) {
    if (missing <= 0) {
      break;
    }
    floors[index] += 1;
    missing -= 1;
  }
  return floors;
}

/**
 * Formats an amount as US dollars, rounded half-to-even: `$1,234.57`, `-$0.40`, or with `decimals: 6` for small unit
 * prices such as a cost per 1,000 tokens (`$0.000185`).
 *
 * @public
 */
export function formatUsd(
  amount: UsdMicros,
  options?: { decimals?: 0 | 1 | 2 | 3 | 4 | 5 | 6 },
): string {
  assertMicros(amount);
  const decimals = options?.decimals ?? 2;
  const unit = 10n ** BigInt(6 - decimals);
  const rounded = divideHalfEven(BigInt(amount), unit);
  const negative = rounded < 0n;
  const digits = (negative ? -rounded : rounded)
    .toString()
    .padStart(decimals + 1, '0');
  const whole = digits
    .slice(0, digits.length - decimals)
    .replace(/\B(?=(\d{3})+$)/g, ',');
  const fraction = decimals > 0 ? `.${digits.slice(-decimals)}` : '';
  return `${negative ? '-' : ''}$${whole}${fraction}`;
}
