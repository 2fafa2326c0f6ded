import fc from 'fast-check';
import { GpuDomainError } from '../errors';
import { defaultGpuModels } from '../platform/defaultGpuModels';
import { migSliceWeights } from './migSliceWeights';

const a100 = defaultGpuModels['A100-80GB'];
const a30 = defaultGpuModels['A30-24GB'];

describe('migSliceWeights', () => {
  it('weighs a 1g.20gb by its memory share: 2 of 8 memory slices is 5040 x 2 / 8 = 1260 units', () => {
    expect(migSliceWeights(a100, { '1g.20gb': 4 })).toEqual({
      unitsByProfile: { '1g.20gb': 1260 },
      strandedUnitsPerGpu: 0,
    });
  });

  it('weighs a 1g.10gb by its compute share: 1 of 7 is 5040 / 7 = 720 units; seven fill the GPU', () => {
    expect(migSliceWeights(a100, { '1g.10gb': 7 })).toEqual({
      unitsByProfile: { '1g.10gb': 720 },
      strandedUnitsPerGpu: 0,
    });
  });

  it('scales a layout that weighs more than one GPU: 2520 + 2880 = 5400 becomes 2352 + 2688', () => {
    // 3g.40gb: max(3/7, 4/8) x 5040 = 2520; 4g.40gb: max(4/7, 4/8) x 5040 = 2880.
    // Scaled by 5040 / 5400: 2520 x 14 / 15 = 2352, 2880 x 14 / 15 = 2688.
    expect(migSliceWeights(a100, { '3g.40gb': 1, '4g.40gb': 1 })).toEqual({
      unitsByProfile: { '3g.40gb': 2352, '4g.40gb': 2688 },
      strandedUnitsPerGpu: 0,
    });
  });

  it('reports what a layout leaves unused as stranded: two 1g.10gb leave 5040 - 2 x 720 = 3600', () => {
    expect(migSliceWeights(a100, { '1g.10gb': 2 })).toEqual({
      unitsByProfile: { '1g.10gb': 720 },
      strandedUnitsPerGpu: 3600,
    });
  });

  it('gives a unit that cannot go to every instance of a profile to stranded', () => {
    // 1g.20gb 1260 x 3 + 1g.10gb 720 x 2 = 5220 raw; x 5040 / 5220 = x 28 / 29:
    // 1260 x 28 / 29 = 1216.55 -> 1216 (remainder 16/29), 720 x 28 / 29 = 695.17 -> 695 (remainder 5/29).
    // Floors: 3 x 1216 + 2 x 695 = 5038; 2 left: not enough for the three 1g.20gb, enough for the two 1g.10gb.
    expect(migSliceWeights(a100, { '1g.20gb': 3, '1g.10gb': 2 })).toEqual({
      unitsByProfile: { '1g.20gb': 1216, '1g.10gb': 696 },
      strandedUnitsPerGpu: 0,
    });
  });

  it('uses the GPU own slice counts on an A30: 2g.12gb is 2 of 4, 2520 units', () => {
    expect(migSliceWeights(a30, { '2g.12gb': 1, '1g.6gb': 1 })).toEqual({
      unitsByProfile: { '2g.12gb': 2520, '1g.6gb': 1260 },
      strandedUnitsPerGpu: 1260,
    });
  });

  it('keeps instances x weights + stranded at exactly one GPU for any layout', () => {
    const names = a100.migProfiles.map(p => p.name);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 7 }), {
          minLength: names.length,
          maxLength: names.length,
        }),
        counts => {
          const layout = Object.fromEntries(
            names.map((n, i) => [n, counts[i]]),
          );
          const { unitsByProfile, strandedUnitsPerGpu } = migSliceWeights(
            a100,
            layout,
          );
          const held = Object.entries(unitsByProfile).reduce(
            (sum, [name, units]) => sum + layout[name] * units,
            0,
          );
          expect(held + strandedUnitsPerGpu).toBe(5040);
          expect(strandedUnitsPerGpu).toBeGreaterThanOrEqual(0);
          for (const units of Object.values(unitsByProfile)) {
            expect(Number.isInteger(units) && units > 0).toBe(true);
          }
        },
      ),
    );
  });

  it('rejects a profile the GPU does not have and a GPU without MIG', () => {
    expect(() => migSliceWeights(a100, { '1g.6gb': 1 })).toThrow(
      /names 1g\.6gb, which A100-80GB does not have/,
    );
    expect(() =>
      migSliceWeights(defaultGpuModels.L4, { '1g.10gb': 1 }),
    ).toThrow(GpuDomainError);
  });
});
