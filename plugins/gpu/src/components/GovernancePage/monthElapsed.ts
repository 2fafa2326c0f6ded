import { DateTime } from 'luxon';

/** Share of the calendar month (UTC) `month` (`YYYY-MM`) elapsed at the ISO time `at`, 0 to 1. */
export function monthElapsed(month: string, at: string): number {
  const start = DateTime.fromISO(`${month}-01T00:00:00Z`, { zone: 'utc' });
  const end = start.plus({ months: 1 });
  const now = DateTime.fromISO(at, { zone: 'utc' });
  const fraction =
    now.diff(start).as('milliseconds') / end.diff(start).as('milliseconds');
  return Math.min(1, Math.max(0, fraction));
}
