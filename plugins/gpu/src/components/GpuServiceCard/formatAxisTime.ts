import { DateTime } from 'luxon';

/** Tick labels of a time axis: hours and minutes within two days, else month and day (UTC). */
export function axisTimeFormatter(
  durationSeconds: number,
): (timestamp: number) => string {
  const format = durationSeconds <= 2 * 86_400 ? 'HH:mm' : 'LLL d';
  return timestamp =>
    DateTime.fromMillis(timestamp, { zone: 'utc' }).toFormat(format);
}
