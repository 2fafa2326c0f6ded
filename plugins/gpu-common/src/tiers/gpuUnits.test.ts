import { GPU_UNITS_PER_EQUIVALENT, gpuUnitsOf } from './gpuUnits';

describe('gpuUnitsOf', () => {
  it('counts GPU-equivalents in units of 1/5040, rounded to the nearest', () => {
    expect(gpuUnitsOf(1, 'quota')).toBe(GPU_UNITS_PER_EQUIVALENT);
    expect(gpuUnitsOf(1 / 7, 'quota')).toBe(720);
    expect(gpuUnitsOf(0, 'quota')).toBe(0);
    expect(gpuUnitsOf(0.00015, 'quota')).toBe(1);
  });

  it('refuses an amount above zero that would round to no unit, naming the smallest', () => {
    expect(() => gpuUnitsOf(0.00001, 'quota of pool l4')).toThrow(
      'quota of pool l4 is below the smallest amount, 1/5040 GPU-equivalent (about 0.000198): give 0 or at least that; got 0.00001',
    );
    expect(() => gpuUnitsOf(Number.MIN_VALUE, 'quota')).toThrow(
      /below the smallest amount/,
    );
  });

  it('refuses negative, non-finite and too large amounts', () => {
    expect(() => gpuUnitsOf(-1, 'quota')).toThrow(/zero or more; got -1/);
    expect(() => gpuUnitsOf(Infinity, 'quota')).toThrow(/finite/);
    expect(() => gpuUnitsOf(1e300, 'quota')).toThrow(/too large/);
  });
});
