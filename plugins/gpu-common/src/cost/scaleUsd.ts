import { InputError } from '@backstage/errors';
import { divideHalfEven } from './divideHalfEven';
import { UsdMicros } from './money';

/** A non-negative rational number as numerator and denominator. */
type Fraction = readonly [numerator: bigint, denominator: bigint];

const MAX_DENOMINATOR = 1_000_000;

/**
 * The exact rational a factor stands for: the simplest fraction with a denominator up to 10^6 that is the same double
 * (so `1 / 7`, `3 / 7` and `0.4` become 1/7, 3/7 and 2/5), otherwise the shortest decimal that prints as the double.
 */
function toFraction(value: number): Fraction {
  if (Number.isInteger(value)) {
    return [BigInt(value), 1n];
  }
  // Continued-fraction convergents h/k of value.
  let [h0, h1, k0, k1] = [0, 1, 1, 0];
  let rest = value;
  for (let step = 0; step < 40; step++) {
    const whole = Math.floor(rest);
    [h0, h1] = [h1, whole * h1 + h0];
    [k0, k1] = [k1, whole * k1 + k0];
    if (k1 > MAX_DENOMINATOR) {
      break;
    }
    if (h1 / k1 === value) {
      return [BigInt(h1), BigInt(k1)];
    }
    rest = 1 / (rest - whole);
    if (!Number.isFinite(rest)) {
      break;
    }
  }
  const [mantissa, exponent = '0'] = String(value).split('e');
  const [whole, fraction = ''] = mantissa.split('.');
  const scale = Number(exponent) - fraction.length;
  const digits = BigInt(whole + fraction);
  return scale >= 0
    ? [digits * 10n ** BigInt(scale), 1n]
    : [digits, 10n ** BigInt(-scale)];
}

/**
 * Multiplies an amount by non-negative factors (GPU shares, hours, utilisation) and divides by positive divisors
 * with exact rational arithmetic, rounding once, half-to-even, to whole micro-dollars.
 *
 * @throws InputError when a factor is negative or not finite, or a divisor is not positive.
 * @public
 */
export function scaleUsd(
  amount: UsdMicros,
  factors: readonly number[],
  divisors: readonly number[] = [],
): UsdMicros {
  let numerator = BigInt(amount);
  let denominator = 1n;
  for (const factor of factors) {
    if (!(factor >= 0) || !Number.isFinite(factor)) {
      throw new InputError(
        `Invalid cost factor ${factor}: shares, hours and utilisation must be finite and not negative`,
      );
    }
    const [n, d] = toFraction(factor);
    numerator *= n;
    denominator *= d;
  }
  for (const divisor of divisors) {
    if (!(divisor > 0) || !Number.isFinite(divisor)) {
      throw new InputError(
        `Invalid cost divisor ${divisor}: it must be a finite number above 0`,
      );
    }
    const [n, d] = toFraction(divisor);
    numerator *= d;
    denominator *= n;
  }
  const result = Number(divideHalfEven(numerator, denominator));
  if (!Number.isSafeInteger(result)) {
    throw new InputError(
      `Cost ${result} micro-dollars is out of range: amounts must stay below 9,000,000,000 USD`,
    );
  }
  return result;
}
