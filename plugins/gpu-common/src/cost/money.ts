import { InputError } from '@backstage/errors';
import { divideHalfEven } from './divideHalfEven';

/**
 * An amount of US dollars as an integer number of micro-dollars (1 USD = 1,000,000).
 *
 * Every cost in this package is exact integer arithmetic in this unit; rounding to cents happens only when an amount
 * is presented ({@link toCents}, {@link formatUsd}). Integers up to 2^53 (about 9 billion USD) are exact.
 *
 * @public
 */
export type UsdMicros = number;

/**
 * Micro-dollars in one US dollar.
 *
 * @public
 */
export const MICROS_PER_USD = 1_000_000;

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Parses a decimal USD amount (`'0.8048'`, `'1200'`, or a number from config) into exact micro-dollars, without ever
 * going through a binary float. Digits beyond the sixth decimal are rounded half-to-even.
 *
 * @throws InputError when the value is not a finite decimal number.
 * @public
 */
export function parseUsd(value: string | number): UsdMicros {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new InputError(
      `Invalid USD amount '${value}': expected a decimal number such as '0.8048' or '1200'`,
    );
  }
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  if (digits === 0n) return 0;
  const scale = Number(exponent) - fraction.length + 6;
  // Never raise 10n to an exponent a caller chose: 1e999999999 would take the process's memory and time.
  if (Number(exponent) > 1000) {
    throw new InputError(
      `USD amount '${value}' is too large: amounts must stay below 9,000,000,000 USD`,
    );
  }
  if (Number(exponent) < -1000) return 0;
  let micros: bigint;
  if (scale >= 0) {
    micros = digits * 10n ** BigInt(scale);
  } else {
    micros = divideHalfEven(digits, 10n ** BigInt(-scale));
  }
  const result = Number(sign === '-' ? -micros : micros);
  if (!Number.isSafeInteger(result)) {
    throw new InputError(
      `USD amount '${value}' is too large: amounts must stay below 9,000,000,000 USD`,
    );
  }
  return result;
}

/**
 * Adds USD amounts exactly.
 *
 * @throws InputError when an amount is not an integer number of micro-dollars or the sum leaves the exact range.
 * @public
 */
export function sumUsd(amounts: Iterable<UsdMicros>): UsdMicros {
  let total = 0;
  for (const amount of amounts) {
    total += amount;
    if (!Number.isSafeInteger(amount) || !Number.isSafeInteger(total)) {
      throw new InputError(
        `Cannot add USD amount ${amount}: amounts must be integer micro-dollars and the sum below 2^53`,
      );
    }
  }
  return total;
}
