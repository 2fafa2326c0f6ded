/** Formats micro-dollars as a dollar amount for messages, e.g. `$1,234.56`. */
export function formatMicros(micros: number): string {
  return `$${(micros / 1_000_000).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  })}`;
}
