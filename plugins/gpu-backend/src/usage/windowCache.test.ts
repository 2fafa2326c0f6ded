import { Measurement } from './measurement';
import { WindowCache } from './windowCache';

const measurement = (): Measurement => ({
  status: { state: 'available' },
  usage: new Map(),
});

describe('WindowCache', () => {
  it('keeps an answer for the time its ttlOf gives: a complete measurement for its step, a degraded one briefly', async () => {
    let clock = 0;
    const cache = new WindowCache<Measurement>(30_000, () => clock);
    const complete = jest.fn(async () => measurement());
    const ttlOf = (m: Measurement) =>
      m.status.state === 'available' ? 3_600_000 : 30_000;
    const first = await cache.get('hour', 1000, complete, ttlOf);
    clock = 1_800_000;
    expect(await cache.get('hour', 2800, complete, ttlOf)).toBe(first);
    expect(complete).toHaveBeenCalledTimes(1);

    const degraded = jest.fn(
      async (): Promise<Measurement> => ({
        status: { state: 'unavailable', reason: 'no answer in time' },
        usage: new Map(),
      }),
    );
    await cache.get('slow', 2800, degraded, ttlOf);
    clock += 31_000;
    await cache.get('slow', 2831, degraded, ttlOf);
    expect(degraded).toHaveBeenCalledTimes(2);
  });

  it('shares a measurement in flight and for the TTL, for windows ending up to the TTL later', async () => {
    let clock = 0;
    const cache = new WindowCache<Measurement>(30_000, () => clock);
    const measure = jest.fn(async () => measurement());
    const [a, b] = await Promise.all([
      cache.get('k', 1000, measure),
      cache.get('k', 1000, measure),
    ]);
    expect(a).toBe(b);
    clock = 29_000;
    expect(await cache.get('k', 1029, measure)).toBe(a);
    expect(measure).toHaveBeenCalledTimes(1);
    // A window ending before the cached one, another key, or after the TTL: measured again.
    await cache.get('k', 999, measure);
    expect(measure).toHaveBeenCalledTimes(2);
    await cache.get('other', 999, measure);
    expect(measure).toHaveBeenCalledTimes(3);
    clock = 60_000;
    await cache.get('other', 999, measure);
    expect(measure).toHaveBeenCalledTimes(4);
  });

  it('does not keep a measurement that threw', async () => {
    const cache = new WindowCache<Measurement>(30_000, () => 0);
    await expect(
      cache.get('k', 1, async () => {
        throw new Error('bug');
      }),
    ).rejects.toThrow('bug');
    const fresh = measurement();
    expect(await cache.get('k', 1, async () => fresh)).toBe(fresh);
  });
});
