import { InputError } from '@backstage/errors';

/**
 * Rounds a double to the nearest integer, ties to even. For a quotient of two integers below 2^52 the double is the
 * correctly rounded quotient, so ties are detected exactly.
 *
 * @throws InputError when the result is not a safe integer.
 */
export function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  let result = floor;
  if (diff > 0.5 || (diff === 0.5 && floor % 2 !== 0)) {
    result = floor + 1;
  }
  if (!Number.isSafeInteger(result)) {
    throw new InputError(
      `Amount ${value} micro-dollars is out of range: amounts must stay below 9,000,000,000 USD`,
    );
  }
  return result === 0 ? 0 : result;
}
