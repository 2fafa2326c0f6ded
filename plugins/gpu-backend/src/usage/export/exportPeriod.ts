import { InputError } from '@backstage/errors';
import { DateTime } from 'luxon';

/** The UTC days an export covers, `from` to `to` included, as the start of each day. */
export interface ExportPeriod {
  from: DateTime;
  /** The start of the last day. */
  to: DateTime;
  days: DateTime[];
}

/** Most days one export covers: a quarter. */
export const MAX_EXPORT_DAYS = 93;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parses the `firstDay` and `lastDay` query parameters of the cost export: UTC days (`2026-11-01`), the last
 * included, at most {@link MAX_EXPORT_DAYS} days, and only days that are over at `now` (a day still running has no
 * final figures). `lastDay` defaults to yesterday, `firstDay` to the first day of the last day's month.
 *
 * @throws InputError saying which parameter is wrong and why.
 */
export function parseExportPeriod(
  firstDay: unknown,
  lastDay: unknown,
  now: DateTime,
): ExportPeriod {
  const today = now.toUTC().startOf('day');
  const to =
    lastDay === undefined || lastDay === ''
      ? today.minus({ days: 1 })
      : parseDay('lastDay', lastDay);
  const from =
    firstDay === undefined || firstDay === ''
      ? to.startOf('month')
      : parseDay('firstDay', firstDay);
  if (to >= today) {
    throw new InputError(
      `Invalid lastDay '${to.toISODate()}': the export covers whole UTC days that are over; the last is ${today
        .minus({ days: 1 })
        .toISODate()}`,
    );
  }
  if (from > to) {
    throw new InputError(
      `Invalid period: firstDay '${from.toISODate()}' is after lastDay '${to.toISODate()}'`,
    );
  }
  const count = Math.round(to.diff(from, 'days').days) + 1;
  if (count > MAX_EXPORT_DAYS) {
    throw new InputError(
      `Invalid period: ${count} days from '${from.toISODate()}' to '${to.toISODate()}'; an export covers at most ${MAX_EXPORT_DAYS} days`,
    );
  }
  const days = Array.from({ length: count }, (_, i) => from.plus({ days: i }));
  return { from, to, days };
}

function parseDay(name: string, value: unknown): DateTime {
  const day =
    typeof value === 'string' && DAY.test(value)
      ? DateTime.fromISO(value, { zone: 'utc' })
      : undefined;
  if (!day?.isValid) {
    throw new InputError(
      `Invalid ${name} '${String(value)}': give a UTC day such as 2026-11-01`,
    );
  }
  return day;
}
