import { DateTime } from 'luxon';

const GIB = 1024 ** 3;

/** A 0-1 fraction as a percentage: `42%`, `0.5%` below one percent. */
export function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  if (percent !== 0 && Math.abs(percent) < 1) {
    return `${percent.toFixed(1)}%`;
  }
  return `${Math.round(percent)}%`;
}

/** Bytes as GiB with one decimal: `9.0 GiB`. */
export function formatGib(bytes: number): string {
  return `${(bytes / GIB).toFixed(1)} GiB`;
}

/** GPU-equivalents without trailing zeros: `1`, `0.25`, `0.143`. */
export function formatGpuEquivalents(value: number): string {
  return String(Number(value.toFixed(3)));
}

/** A rate with a sensible precision: `1,234`, `12.3`, `0.42`. */
export function formatRate(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** An ISO time as `2026-11-29 22:10 UTC`. */
export function formatTime(iso: string): string {
  return DateTime.fromISO(iso, { zone: 'utc' }).toFormat(
    "yyyy-LL-dd HH:mm 'UTC'",
  );
}

/**
 * How long ago an ISO time was, never in the future (a clock a little ahead of the browser's reads as now):
 * `just now` under ten seconds, else `5 minutes ago`.
 */
export function formatAge(iso: string, now: number = Date.now()): string {
  const at = DateTime.fromISO(iso);
  if (!at.isValid) return iso;
  if (now - at.toMillis() < 10_000) return 'just now';
  return at.toRelative({ base: DateTime.fromMillis(now) }) ?? iso;
}
