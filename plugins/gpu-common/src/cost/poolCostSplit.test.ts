import fc from 'fast-check';
import { parsePlatform } from '../platform/parsePlatform';
import { poolCostSplit } from './poolCostSplit';
import { splitMicros } from './splitMicros';

function migPlatform(layout: Record<string, number>) {
  return parsePlatform({
    hoursPerMonth: 730,
    pools: [
      {
        name: 'a100',
        gpuModel: 'A100-80GB',
        gpusPerNode: 8,
        maxNodes: 1,
        pricePerNodeHour: '27.447',
        sharing: { type: 'mig', layout },
      },
    ],
  });
}

describe('splitMicros', () => {
  it('splits by largest remainder so the parts add up exactly', () => {
    expect(splitMicros(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(splitMicros(100, [3, 0, 1])).toEqual([75, 0, 25]);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.array(fc.integer({ min: 0, max: 1e6 }), {
          minLength: 1,
          maxLength: 5,
        }),
        (total, weights) => {
          fc.pre(weights.some(w => w > 0));
          const parts = splitMicros(total, weights);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
          parts.forEach((part, i) => {
            const exact =
              (total * weights[i]) / weights.reduce((a, b) => a + b);
            expect(Math.abs(part - exact)).toBeLessThan(1 + 1e-6 * exact);
          });
        },
      ),
    );
  });

  it('refuses weights that add up to nothing', () => {
    expect(() => splitMicros(5, [0, 0])).toThrow(/add up to 0/);
  });
});

describe('poolCostSplit', () => {
  it('reports what a MIG layout strands: two 1g.10gb per A100 leave 5/7 of the price unused', () => {
    // 1 node x 8 GPUs at $27.447/h x 730 h = $20,036.31. Per GPU 2 x 720 units used, 3600 of 5040 stranded.
    // Three 1g.10gb held: 2160 units of 40320 = 3/56; stranded 28800 = 5/7; unallocated 11520 - 2160 = 9360 = 13/56.
    const platform = migPlatform({ '1g.10gb': 2 });
    expect(poolCostSplit(platform, platform.pools[0], 3 * 720)).toEqual({
      pool: 'a100',
      gpus: 8,
      capacityGpuUnits: 40320,
      allocatedGpuUnits: 2160,
      strandedGpuUnits: 28800,
      unallocatedGpuUnits: 9360,
      capacityMicros: 20_036_310_000,
      allocatedMicros: 1_073_373_750,
      strandedMicros: 14_311_650_000,
      unallocatedMicros: 4_651_286_250,
    });
  });

  it('strands nothing when the layout fills the GPU: four 1g.20gb', () => {
    const platform = migPlatform({ '1g.20gb': 4 });
    // 32 instances of 1260 units; all held.
    const split = poolCostSplit(platform, platform.pools[0], 32 * 1260);
    expect(split.strandedMicros).toBe(0);
    expect(split.unallocatedMicros).toBe(0);
    expect(split.allocatedMicros).toBe(20_036_310_000);
  });

  it('adds up to the capacity cost for any amount held', () => {
    const platform = migPlatform({ '1g.10gb': 2, '2g.20gb': 1 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000 }), held => {
        const s = poolCostSplit(platform, platform.pools[0], held);
        expect(s.allocatedMicros + s.strandedMicros + s.unallocatedMicros).toBe(
          s.capacityMicros,
        );
        expect(
          s.allocatedGpuUnits + s.strandedGpuUnits + s.unallocatedGpuUnits,
        ).toBe(s.capacityGpuUnits);
        expect(s.unallocatedMicros).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
