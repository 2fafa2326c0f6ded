import { monthElapsed } from './monthElapsed';

describe('monthElapsed', () => {
  it('is the share of the UTC month behind a time', () => {
    expect(monthElapsed('2026-11', '2026-11-16T00:00:00Z')).toBe(0.5);
    expect(monthElapsed('2026-02', '2026-02-08T00:00:00Z')).toBe(0.25);
    expect(monthElapsed('2026-11', '2026-10-31T23:00:00Z')).toBe(0);
    expect(monthElapsed('2026-11', '2026-12-02T00:00:00Z')).toBe(1);
  });
});
