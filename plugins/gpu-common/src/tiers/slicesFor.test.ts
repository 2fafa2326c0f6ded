import fc from 'fast-check';
import { GpuDomainError } from '../errors';
import { defaultGpuModels } from '../platform/defaultGpuModels';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { Pool } from '../platform/types';
import { GB, GIB } from '../sizing/units';
import { describeSlice } from './describeSlice';
import { poolTier } from './poolTier';
import { resourceNameFor } from './resourceNameFor';
import { sharedGpuMemoryUtilization, slicesFor } from './slicesFor';
import { tierIsolation } from './tierIsolation';

const platform = parsePlatform(demoPlatformConfig);

describe('slicesFor', () => {
  it('offers one dedicated slice per tensor-parallel size up to the GPUs per node', () => {
    expect(slicesFor(platform, 'l4-ondemand')).toEqual([
      {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        gpuModel: 'L4',
        gpusPerReplica: 1,
        memoryBytes: 24 * GIB,
        deviceMemoryBytes: 24 * GIB,
        gpuUnits: 5040,
        gpuShare: 1,
        isolation: 'full',
        resourceName: 'nvidia.com/gpu',
        resourceCount: 1,
        gpuMemoryUtilization: 0.9,
        allocation: { backend: 'device-plugin', requested: 'device-plugin' },
      },
    ]);
    const h100 = slicesFor(platform, 'h100');
    expect(
      h100.map(s => [s.gpusPerReplica, s.resourceCount, s.gpuShare]),
    ).toEqual([
      [1, 1, 1],
      [2, 2, 2],
      [4, 4, 4],
      [8, 8, 8],
    ]);
    expect(h100[3].memoryBytes).toBe(8 * 80 * GIB);
  });

  it('offers one MIG slice per profile of the layout, weighed by the larger of compute and memory share', () => {
    // a100-mig: 2 x 1g.10gb + 2g.20gb + 3g.40gb per A100-80GB. Raw: 720, 1440, 2520 (3g.40gb takes 4 of 8 memory
    // slices); 2 x 720 + 1440 + 2520 = 5400, scaled by 5040 / 5400 = 14/15.
    const slices = slicesFor(platform, 'a100-mig');
    expect(
      slices.map(s => [
        s.migProfile,
        s.resourceName,
        s.memoryBytes,
        s.gpuUnits,
        s.gpuShare,
      ]),
    ).toEqual([
      ['1g.10gb', 'nvidia.com/mig-1g.10gb', 10 * GB, 672, 672 / 5040],
      ['2g.20gb', 'nvidia.com/mig-2g.20gb', 20 * GB, 1344, 1344 / 5040],
      ['3g.40gb', 'nvidia.com/mig-3g.40gb', 40 * GB, 2352, 2352 / 5040],
    ]);
    for (const slice of slices) {
      expect(slice).toMatchObject({
        tier: 'mig',
        isolation: 'hardware',
        resourceCount: 1,
        gpusPerReplica: 1,
        gpuMemoryUtilization: 0.9,
      });
    }
  });

  it('counts A30 MIG shares out of 4 compute slices', () => {
    const a30 = parsePlatform({
      pools: [
        {
          name: 'a30',
          gpuModel: 'A30-24GB',
          gpusPerNode: 4,
          maxNodes: 1,
          pricePerNodeHour: 4,
          sharing: { type: 'mig', layout: { '1g.6gb': 2, '2g.12gb': 1 } },
        },
      ],
    });
    expect(slicesFor(a30, 'a30').map(s => s.gpuShare)).toEqual([0.25, 0.5]);
  });

  it('offers a 1/R share on MPS and time-slicing pools', () => {
    expect(slicesFor(platform, 'l4-mps')).toEqual([
      {
        tier: 'mps',
        pool: 'l4-mps',
        gpuModel: 'L4',
        gpusPerReplica: 1,
        memoryBytes: 6 * GIB,
        deviceMemoryBytes: 24 * GIB,
        gpuUnits: 1260,
        gpuShare: 0.25,
        isolation: 'capped',
        resourceName: 'nvidia.com/gpu.shared',
        resourceCount: 1,
        gpuMemoryUtilization: 0.22,
        allocation: { backend: 'device-plugin', requested: 'device-plugin' },
      },
    ]);
    expect(slicesFor(platform, 't4-timeslice')[0]).toMatchObject({
      tier: 'time-sliced',
      isolation: 'none',
      resourceName: 'nvidia.com/gpu',
      memoryBytes: 4 * GIB,
      gpuShare: 0.25,
      gpuMemoryUtilization: 0.22,
    });
  });

  it('rejects an unknown pool name with the allowed pools', () => {
    expect(() => slicesFor(platform, 'nope')).toThrow(GpuDomainError);
    expect(() => slicesFor(platform, 'nope')).toThrow(
      /allowed: l4-ondemand, spot-l4, a100-mig, l4-mps, t4-timeslice or h100/,
    );
  });

  it('never gives shared slices more than one GPU per physical GPU, in share or in memory', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 48 }),
        fc.constantFrom('mps' as const, 'time-slicing' as const),
        fc.constantFrom(...Object.keys(defaultGpuModels)),
        (replicas, type, gpuModel) => {
          const shared = parsePlatform({
            pools: [
              {
                name: 'shared',
                gpuModel,
                gpusPerNode: 1,
                maxNodes: 1,
                pricePerNodeHour: 1,
                sharing: { type, replicas },
              },
            ],
          });
          const [slice] = slicesFor(shared, 'shared');
          const card = defaultGpuModels[gpuModel].memoryGiB * GIB;
          // 5040 / R, rounded down when R does not divide 5040 (11 -> 458; 11 x 458 = 5038).
          expect(slice.gpuUnits * replicas).toBeLessThanOrEqual(5040);
          expect(slice.gpuUnits * replicas).toBeGreaterThan(5040 - replicas);
          expect(slice.memoryBytes * replicas).toBeLessThanOrEqual(card + 1e-3);
          const claimed =
            slice.deviceMemoryBytes * slice.gpuMemoryUtilization * replicas;
          expect(claimed).toBeLessThanOrEqual(0.9 * card + 1e-3);
        },
      ),
    );
  });

  it('sets --gpu-memory-utilization to 0.90 / R rounded down to two decimals', () => {
    expect(sharedGpuMemoryUtilization(2)).toBe(0.45);
    expect(sharedGpuMemoryUtilization(3)).toBe(0.3);
    expect(sharedGpuMemoryUtilization(4)).toBe(0.22);
    expect(sharedGpuMemoryUtilization(48)).toBe(0.01);
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 48 }), replicas => {
        const utilization = sharedGpuMemoryUtilization(replicas);
        expect(utilization * replicas).toBeLessThanOrEqual(0.9 + 1e-9);
        expect(utilization).toBeGreaterThan(0.9 / replicas - 0.01);
      }),
    );
  });

  it('keeps every accepted MIG layout within the GPU: units sum to at most 5040, memory to at most the card', () => {
    let accepted = 0;
    const migGpus = Object.values(defaultGpuModels).filter(
      g => g.migProfiles.length > 0,
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...migGpus),
        // Mostly-empty layouts, so that a good share of the generated ones fit a GPU and get accepted.
        fc.array(fc.constantFrom(0, 0, 0, 0, 0, 1, 1, 2, 3), {
          minLength: 6,
          maxLength: 6,
        }),
        (gpu, counts) => {
          const layout = Object.fromEntries(
            gpu.migProfiles
              .map((p, i) => [p.name, counts[i]] as const)
              .filter(([, count]) => count > 0),
          );
          let mig;
          try {
            mig = parsePlatform({
              pools: [
                {
                  name: 'mig',
                  gpuModel: gpu.name,
                  gpusPerNode: 8,
                  maxNodes: 1,
                  pricePerNodeHour: 1,
                  sharing: { type: 'mig', layout },
                },
              ],
            });
          } catch (error) {
            return (error as GpuDomainError).code === 'INVALID_CONFIG';
          }
          accepted += 1;
          const slices = slicesFor(mig, 'mig');
          const units = slices.reduce(
            (sum, s) => sum + s.gpuUnits * layout[s.migProfile!],
            0,
          );
          const memory = slices.reduce(
            (sum, s) => sum + s.memoryBytes * layout[s.migProfile!],
            0,
          );
          return units <= 5040 && memory <= gpu.memoryGiB * GIB;
        },
      ),
      { numRuns: 300 },
    );
    expect(accepted).toBeGreaterThan(30);
  });
});

describe('tier semantics', () => {
  const pool = (sharing: Pool['sharing'], renameByDefault = false) => ({
    name: 'p',
    sharing,
    renameByDefault,
    allocation: {
      backend: 'device-plugin' as const,
      requested: 'device-plugin' as const,
    },
  });

  it('maps pool sharing to tiers and isolation', () => {
    expect(poolTier(pool({ type: 'none' }))).toBe('dedicated');
    expect(poolTier(pool({ type: 'mig', layout: {} }))).toBe('mig');
    expect(poolTier(pool({ type: 'mps', replicas: 2 }))).toBe('mps');
    expect(poolTier(pool({ type: 'time-slicing', replicas: 2 }))).toBe(
      'time-sliced',
    );
    expect(tierIsolation('dedicated')).toBe('full');
    expect(tierIsolation('mig')).toBe('hardware');
    expect(tierIsolation('mps')).toBe('capped');
    expect(tierIsolation('time-sliced')).toBe('none');
  });

  it('names the container resource per pool', () => {
    expect(resourceNameFor(pool({ type: 'none' }))).toBe('nvidia.com/gpu');
    expect(resourceNameFor(pool({ type: 'mig', layout: {} }), '3g.40gb')).toBe(
      'nvidia.com/mig-3g.40gb',
    );
    expect(() => resourceNameFor(pool({ type: 'mig', layout: {} }))).toThrow(
      /name the MIG profile/,
    );
    expect(resourceNameFor(pool({ type: 'mps', replicas: 4 }))).toBe(
      'nvidia.com/gpu',
    );
    expect(resourceNameFor(pool({ type: 'mps', replicas: 4 }, true))).toBe(
      'nvidia.com/gpu.shared',
    );
    expect(
      resourceNameFor(pool({ type: 'time-slicing', replicas: 4 }, true)),
    ).toBe('nvidia.com/gpu.shared');
  });

  it('describes slices for messages', () => {
    const describe1 = (name: string) =>
      slicesFor(platform, name).map(describeSlice);
    expect(describe1('h100')[1]).toBe('2 x H100-80GB');
    expect(describe1('a100-mig')[0]).toBe(
      'a 1g.10gb MIG slice of an A100-80GB',
    );
    expect(describe1('l4-mps')[0]).toBe('a 1/4 MPS share of an L4');
    expect(describe1('t4-timeslice')[0]).toBe(
      'a 1/4 time-sliced share of a T4',
    );
  });
});
