import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ReservationRecord } from '../database';
import { ServiceAllocation } from './AllocationReader';
import { poolCosts } from './poolCosts';

const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [
    ...demoPlatformConfig.pools,
    {
      name: 'a100-sparse',
      gpuModel: 'A100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      pricePerNodeHour: '27.447',
      nodeLabels: { 'gpu.example.com/pool': 'a100-sparse' },
      sharing: { type: 'mig', layout: { '1g.10gb': 2 } },
    },
  ],
});

function allocation(
  reservations: Array<
    Pick<ReservationRecord, 'pool' | 'gpuEquivalents' | 'state'>
  >,
): ServiceAllocation {
  return { reservations } as unknown as ServiceAllocation;
}

describe('poolCosts', () => {
  it('splits each pool into allocated, stranded and unallocated from the reservations held now', () => {
    const pools = poolCosts(platform, [
      // Three 1g.10gb held (720 units each on a100-sparse), one released: 2160 units.
      allocation([
        { pool: 'a100-sparse', gpuEquivalents: 2 / 7, state: 'held' },
        { pool: 'a100-sparse', gpuEquivalents: 1 / 7, state: 'released' },
      ]),
      allocation([
        { pool: 'a100-sparse', gpuEquivalents: 1 / 7, state: 'held' },
      ]),
      allocation([{ pool: 'l4-ondemand', gpuEquivalents: 1, state: 'held' }]),
    ]);
    expect(pools.map(p => p.pool)).toEqual([
      ...demoPlatformConfig.pools.map(p => p.name),
      'a100-sparse',
    ]);
    // $27.447 x 730 h = $20,036.31; 2160 / 40320 = 3/56 allocated, 28800 / 40320 = 5/7 stranded, 9360 / 40320 = 13/56 free.
    expect(pools.find(p => p.pool === 'a100-sparse')).toMatchObject({
      allocatedGpuUnits: 2160,
      strandedGpuUnits: 28800,
      unallocatedGpuUnits: 9360,
      capacityMicros: 20_036_310_000,
      allocatedMicros: 1_073_373_750,
      strandedMicros: 14_311_650_000,
      unallocatedMicros: 4_651_286_250,
    });
    // l4-ondemand: 4 nodes x $0.8048 x 730 h = $2,350.016; one of four GPUs held.
    expect(pools.find(p => p.pool === 'l4-ondemand')).toMatchObject({
      capacityMicros: 2_350_016_000,
      allocatedMicros: 587_504_000,
      strandedMicros: 0,
      unallocatedMicros: 1_762_512_000,
    });
    for (const p of pools) {
      expect(p.allocatedMicros + p.strandedMicros + p.unallocatedMicros).toBe(
        p.capacityMicros,
      );
    }
  });
});
