/**
 * Lists accepted values for an error message: `a`, `a or b`, `a, b or c`; `none` when there are none.
 *
 * @public
 */
export function listAllowed(values: readonly string[]): string {
  if (values.length === 0) {
    return 'none';
  }
  if (values.length === 1) {
    return values[0];
  }
  return `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}
