const DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * A non-negative amount from config as a plain decimal string (`0.8048`, `27.447`, `3000`), or `undefined` when
 * the value is negative, not finite, in exponent notation or not a number at all.
 *
 * @public
 */
export function toDecimalString(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      return undefined;
    }
    const text = String(value);
    return DECIMAL.test(text) ? text : undefined;
  }
  if (typeof value === 'string') {
    const text = value.trim();
    return DECIMAL.test(text) ? text : undefined;
  }
  return undefined;
}
