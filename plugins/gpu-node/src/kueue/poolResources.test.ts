import { slicesFor } from '@gpu-platform/backstage-plugin-gpu-common';
import { demoPlatform } from '../__testUtils__/platforms';
import { poolResources } from './poolResources';

describe('poolResources', () => {
  const platform = demoPlatform();

  it('names exactly the resources the slices of each pool request', () => {
    for (const pool of platform.pools) {
      const quota = poolResources(platform, pool)
        .map(r => r.name)
        .sort();
      const requested = [
        ...new Set(slicesFor(platform, pool).map(s => s.resourceName)),
      ].sort();
      expect(quota).toEqual(requested);
    }
  });

  it('counts units per GPU and the GPU memory behind each unit', () => {
    const byName = (name: string) =>
      poolResources(platform, platform.pools.find(p => p.name === name)!);
    expect(byName('l4-ondemand')).toEqual([
      { name: 'nvidia.com/gpu', perGpu: 1, memoryGiB: 24 },
    ]);
    expect(byName('l4-mps')).toEqual([
      { name: 'nvidia.com/gpu.shared', perGpu: 4, memoryGiB: 6 },
    ]);
    expect(byName('t4-timeslice')).toEqual([
      { name: 'nvidia.com/gpu', perGpu: 4, memoryGiB: 4 },
    ]);
    expect(
      byName('a100-mig').map(r => [r.name, r.perGpu, r.memoryGiB.toFixed(2)]),
    ).toEqual([
      ['nvidia.com/mig-1g.10gb', 2, '9.31'],
      ['nvidia.com/mig-2g.20gb', 1, '18.63'],
      ['nvidia.com/mig-3g.40gb', 1, '37.25'],
    ]);
  });
});
