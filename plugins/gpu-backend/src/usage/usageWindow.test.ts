import { DateTime } from 'luxon';
import { parseUsageWindow } from './usageWindow';

const now = DateTime.fromISO('2026-11-29T12:34:56.789Z', { zone: 'utc' });

describe('parseUsageWindow', () => {
  it('accepts the named windows and defaults to 24h', () => {
    expect(parseUsageWindow(undefined, now)).toEqual({
      label: '24h',
      start: '2026-11-28T12:34:56.000Z',
      end: '2026-11-29T12:34:56.000Z',
      durationSeconds: 86400,
      stepSeconds: 900,
    });
    expect(parseUsageWindow('1h', now)).toMatchObject({
      durationSeconds: 3600,
      stepSeconds: 60,
    });
    expect(parseUsageWindow('30d', now)).toMatchObject({
      durationSeconds: 30 * 86400,
      stepSeconds: 3 * 3600,
    });
  });

  it('accepts ISO 8601 durations from 5 minutes to 90 days', () => {
    expect(parseUsageWindow('PT90M', now).durationSeconds).toBe(5400);
    expect(parseUsageWindow('P14D', now).durationSeconds).toBe(14 * 86400);
    expect(parseUsageWindow('pt5m', now).durationSeconds).toBe(300);
    expect(parseUsageWindow('P90D', now).durationSeconds).toBe(90 * 86400);
  });

  it.each([
    ['2h', /expected one of 1h, 6h, 24h, 7d, 30d/],
    ['P1M', /ISO 8601 duration in days, hours, minutes or seconds/],
    ['P1Y', /ISO 8601 duration/],
    ['PT4M', /between 5 minutes and 90 days/],
    ['P91D', /between 5 minutes and 90 days/],
    ['P', /Invalid window/],
    [['1h', '6h'], /give one value/],
  ])('rejects %p', (value, message) => {
    expect(() => parseUsageWindow(value, now)).toThrow(message);
  });
});
