import { InputError } from '@backstage/errors';
import {
  USAGE_WINDOWS,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime, Duration } from 'luxon';

const NAMED: Record<string, number> = {
  '1h': 3600,
  '6h': 6 * 3600,
  '24h': 24 * 3600,
  '7d': 7 * 86400,
  '30d': 30 * 86400,
};

/** Shortest and longest windows accepted. */
export const MIN_WINDOW_SECONDS = 5 * 60;
export const MAX_WINDOW_SECONDS = 90 * 86400;

/** Points a chart gets at most; the step grows with the window. */
const TARGET_POINTS = 240;
const STEPS = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 86400];

/**
 * Parses a `window` query parameter: one of `1h|6h|24h|7d|30d` or an ISO 8601 duration (`PT90M`, `P14D`) from 5 minutes
 * to 90 days, ending at `now`. Default `24h`.
 *
 * @throws InputError naming the accepted forms.
 */
export function parseUsageWindow(value: unknown, now: DateTime): UsageWindow {
  const label = value === undefined || value === '' ? '24h' : value;
  if (typeof label !== 'string') {
    throw new InputError('Invalid window: give one value such as 24h or P7D');
  }
  let durationSeconds = NAMED[label];
  if (durationSeconds === undefined) {
    const duration = /^P/i.test(label)
      ? Duration.fromISO(label.toUpperCase())
      : undefined;
    if (!duration?.isValid || /Y|(^P[^T]*M)/.test(label.toUpperCase())) {
      throw new InputError(
        `Invalid window '${label}': expected one of ${USAGE_WINDOWS.join(
          ', ',
        )} or an ISO 8601 duration in days, hours, minutes or seconds such as PT90M or P14D`,
      );
    }
    durationSeconds = Math.round(duration.as('seconds'));
  }
  if (
    durationSeconds < MIN_WINDOW_SECONDS ||
    durationSeconds > MAX_WINDOW_SECONDS
  ) {
    throw new InputError(
      `Invalid window '${label}': it must be between 5 minutes and 90 days`,
    );
  }
  const end = now.toUTC().startOf('second');
  const stepSeconds =
    STEPS.find(step => durationSeconds / step <= TARGET_POINTS) ?? 86400;
  return {
    label,
    start: end.minus({ seconds: durationSeconds }).toISO()!,
    end: end.toISO()!,
    durationSeconds,
    stepSeconds,
  };
}

/** Unix seconds of an ISO time. */
export function unixSeconds(iso: string): number {
  return Math.round(DateTime.fromISO(iso, { zone: 'utc' }).toSeconds());
}
