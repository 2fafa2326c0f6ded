import { slicesFor } from '../tiers/slicesFor';
import { demoPlatformConfig } from './demoPlatformConfig';
import { parsePlatform } from './parsePlatform';
import { PlatformConfig } from './platformConfigSchema';

/** The demo platform with `allocation` set on the pools named, and MIG layouts replaced. */
function withAllocation(
  allocations: Record<string, 'device-plugin' | 'dra'>,
  layouts: Record<string, Record<string, number>> = {},
): PlatformConfig {
  const config = JSON.parse(JSON.stringify(demoPlatformConfig));
  for (const pool of config.pools) {
    if (allocations[pool.name]) pool.allocation = allocations[pool.name];
    if (layouts[pool.name]) pool.sharing.layout = layouts[pool.name];
  }
  return config;
}

describe('pool allocation', () => {
  it('is the device plugin unless a pool asks for DRA', () => {
    const platform = parsePlatform(demoPlatformConfig);
    for (const pool of platform.pools) {
      expect(pool.allocation).toEqual({
        backend: 'device-plugin',
        requested: 'device-plugin',
      });
    }
  });

  it('serves whole GPUs through DRA, charged in nvidia.com/gpu as Kueue maps gpu.nvidia.com', () => {
    const platform = parsePlatform(withAllocation({ 'l4-ondemand': 'dra' }));
    const [slice] = slicesFor(platform, 'l4-ondemand');
    expect(slice.allocation).toEqual({ backend: 'dra', requested: 'dra' });
    expect(slice.resourceName).toBe('nvidia.com/gpu');
    expect(slicesFor(platform, 'spot-l4')[0].allocation.backend).toBe(
      'device-plugin',
    );
  });

  it('serves a single-profile MIG pool through DRA, charged per MIG device', () => {
    const platform = parsePlatform(
      withAllocation({ 'a100-mig': 'dra' }, { 'a100-mig': { '1g.10gb': 7 } }),
    );
    const slices = slicesFor(platform, 'a100-mig');
    expect(
      slices.map(s => [s.migProfile, s.resourceName, s.allocation.backend]),
    ).toEqual([['1g.10gb', 'gpu.backstage.io/mig-devices', 'dra']]);
  });

  it('refuses a DRA MIG pool of several profiles, saying why and what to do', () => {
    expect(() => parsePlatform(withAllocation({ 'a100-mig': 'dra' }))).toThrow(
      /gpu\.pools\[2\]\.allocation: a DRA MIG pool holds one MIG profile \(the layout has 1g\.10gb, 2g\.20gb, 3g\.40gb\): Kueue counts devices of class mig\.nvidia\.com whatever their size/,
    );
  });

  it.each([
    ['l4-mps', 'MPS'],
    ['t4-timeslice', 'time-sliced'],
  ])(
    'keeps %s on the device plugin with the reason: Kueue refuses shared claims',
    (pool, tier) => {
      const platform = parsePlatform(withAllocation({ [pool]: 'dra' }));
      const [slice] = slicesFor(platform, pool);
      expect(slice.allocation).toEqual({
        backend: 'device-plugin',
        requested: 'dra',
        fallback: {
          reason: 'shared-claims-refused',
          message: expect.stringContaining(
            `the ${tier} tier is served by the device plugin`,
          ),
        },
      });
      expect(slice.resourceName).toMatch(/^nvidia\.com\/gpu/);
    },
  );

  it('rejects an unknown allocation backend', () => {
    const config = withAllocation({});
    (config.pools![0] as Record<string, unknown>).allocation = 'cdi';
    expect(() => parsePlatform(config)).toThrow(
      /gpu\.pools\[0\]\.allocation.*"device-plugin"\|"dra"/,
    );
  });
});
