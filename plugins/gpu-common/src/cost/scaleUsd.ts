import { InputError } from '@backstage/errors';
import { divideHalfEven } from './divideHalfEven';
import { UsdMicros } from './money';

/** Integers below this are exact in doubles, and so is the product of a quotient and its divisor. */
const SAFE = 2 ** 52;

const MAX_DENOMINATOR = 1_000_000;

/**
 * The exact rational a factor stands for, left in `fractionNumerator` / `fractionDenominator` (no allocation on the
 * common paths): the value itself when it is an integer; else the simplest fraction with a denominator up to 10^6
 * that is the same double (so `1 / 7`, `3 / 7` and `0.4` become 1/7, 3/7 and 2/5); else the shortest decimal that
 * prints as the double, as bigints.
 */
let fractionNumerator: number | bigint = 0;
let fractionDenominator: number | bigint = 1;

function toFraction(value: number): void {
  if (Number.isInteger(value)) {
    fractionNumerator = value < SAFE ? value : BigInt(value);
    fractionDenominator = 1;
    return;
  }
  // Continued-fraction convergents h1/k1 of value.
  let h0 = 0;
  let h1 = 1;
  let k0 = 1;
  let k1 = 0;
  let rest = value;
  for (let step = 0; step < 40; step++) {
    const whole = Math.floor(rest);
    const h = whole * h1 + h0;
    const k = whole * k1 + k0;
    h0 = h1;
    h1 = h;
    k0 = k1;
    k1 = k;
    if (k1 > MAX_DENOMINATOR || h1 >= SAFE) {
      break;
    }
    if (h1 / k1 === value) {
      fractionNumerator = h1;
      fractionDenominator = k1;
      return;
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
  fractionNumerator = scale >= 0 ? digits * 10n ** BigInt(scale) : digits;
  fractionDenominator = scale >= 0 ? 1n : 10n ** BigInt(-scale);
}

/** Half-to-even quotient of integers below 2^52 (denominator positive). */
function divideSafeHalfEven(numerator: number, denominator: number): number {
  let quotient = Math.floor(numerator / denominator);
  let remainder = numerator - quotient * denominator;
  if (remainder < 0) {
    quotient -= 1;
    remainder += denominator;
  } else if (remainder >= denominator) {
    quotient += 1;
    remainder -= denominator;
  }
  const twice = remainder * 2;
  if (twice > denominator || (twice === denominator && quotient % 2 !== 0)) {
    quotient += 1;
  }
  return quotient === 0 ? 0 : quotient;
}

function checked(value: number, kind: 'factor' | 'divisor'): number {
  if (kind === 'factor' && !(value >= 0 && Number.isFinite(value))) {
    throw new InputError(
      `Invalid cost factor ${value}: shares, hours and utilisation must be finite and not negative`,
    );
  }
  if (kind === 'divisor' && !(value > 0 && Number.isFinite(value))) {
    throw new InputError(
      `Invalid cost divisor ${value}: it must be a finite number above 0`,
    );
  }
  return value;
}

/**
 * Multiplies an amount by non-negative factors (GPU shares, hours, utilisation) and divides by positive divisors
 * with exact rational arithmetic, rounding once, half-to-even, to whole micro-dollars. Doubles carry the arithmetic
 * while every intermediate integer stays below 2^52, bigints beyond.
 *
 * @throws InputError when a factor is negative or not finite, or a divisor is not positive.
 * @public
 */
export function scaleUsd(
  amount: UsdMicros,
  factors: readonly number[],
  divisors: readonly number[] = [],
): UsdMicros {
  let numerator = amount;
  let denominator = 1;
  let bigNumerator: bigint | undefined;
  let bigDenominator = 1n;
  const count = factors.length + divisors.length;
  for (let i = 0; i < count; i++) {
    const isFactor = i < factors.length;
    toFraction(
      checked(
        isFactor ? factors[i] : divisors[i - factors.length],
        isFactor ? 'factor' : 'divisor',
      ),
    );
    const top = isFactor ? fractionNumerator : fractionDenominator;
    const bottom = isFactor ? fractionDenominator : fractionNumerator;
    if (
      bigNumerator === undefined &&
      typeof top === 'number' &&
      typeof bottom === 'number'
    ) {
      const nextNumerator = numerator * top;
      const nextDenominator = denominator * bottom;
      if (Math.abs(nextNumerator) < SAFE && nextDenominator < SAFE) {
        numerator = nextNumerator;
        denominator = nextDenominator;
        continue;
      }
    }
    if (bigNumerator === undefined) {
      bigNumerator = BigInt(numerator);
      bigDenominator = BigInt(denominator);
    }
    bigNumerator *= BigInt(top);
    bigDenominator *= BigInt(bottom);
  }
  const result =
    bigNumerator === undefined
      ? divideSafeHalfEven(numerator, denominator)
      : Number(divideHalfEven(bigNumerator, bigDenominator));
  if (!Number.isSafeInteger(result)) {
    throw new InputError(
      `Cost ${result} micro-dollars is out of range: amounts must stay below 9,000,000,000 USD`,
    );
  }
  return result;
}
