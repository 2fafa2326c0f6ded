/**
 * Divides two bigints and rounds the quotient half-to-even (banker's rounding). `divisor` must be positive.
 */
export function divideHalfEven(dividend: bigint, divisor: bigint): bigint {
  const negative = dividend < 0n;
  const magnitude = negative ? -dividend : dividend;
  let quotient = magnitude / divisor;
  const twiceRemainder = (magnitude % divisor) * 2n;
  if (
    twiceRemainder > divisor ||
    (twiceRemainder === divisor && quotient % 2n === 1n)
  ) {
    quotient += 1n;
  }
  return negative ? -quotient : quotient;
}
