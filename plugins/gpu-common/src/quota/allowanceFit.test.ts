import { budgetFit, quotaFit } from './allowanceFit';
import { allowanceFromConfig, allowanceUnits } from './teamAllowance';

describe('quotaFit', () => {
  it('fits a request up to exactly what the quota leaves free', () => {
    // Quota 2 GPUs = 10080 units, 3 x 1260 held: 6300 free.
    expect(quotaFit(10080, 3780, 6300)).toEqual({
      free: 6300,
      remaining: 0,
      fits: true,
    });
    expect(quotaFit(10080, 3780, 6301)).toEqual({
      free: 6300,
      remaining: -1,
      fits: false,
    });
  });

  it('leaves nothing free when more than the quota is held, and still lets a request of nothing fit', () => {
    expect(quotaFit(5040, 7560, 720)).toEqual({
      free: 0,
      remaining: -3240,
      fits: false,
    });
    expect(quotaFit(5040, 7560, 0).fits).toBe(true);
  });
});

describe('budgetFit', () => {
  it('weighs micro-dollars the same way', () => {
    expect(budgetFit(500_000_000, 120_000_000, 380_000_000)).toEqual({
      free: 380_000_000,
      remaining: 0,
      fits: true,
    });
    expect(budgetFit(500_000_000, 120_000_000, 380_000_001).fits).toBe(false);
  });
});

describe('allowanceFromConfig', () => {
  it('parses quota into GPU units and the budget into micro-dollars once', () => {
    const allowance = allowanceFromConfig({
      name: 'ml',
      namespaces: ['ml'],
      gpuQuota: { 'a100-mig': 1.25, h100: 2 },
      monthlyBudget: '1234.56',
    });
    expect(allowance).toEqual({
      team: 'ml',
      gpuUnits: { 'a100-mig': 6300, h100: 10080 },
      monthlyBudgetMicros: 1_234_560_000,
    });
    expect(allowanceUnits(allowance, 'h100')).toBe(10080);
    expect(allowanceUnits(allowance, 'l4')).toBe(0);
  });

  it('names the team and pool of a quota that is not a number of GPUs', () => {
    expect(() =>
      allowanceFromConfig({
        name: 'ml',
        namespaces: ['ml'],
        gpuQuota: { h100: -1 },
        monthlyBudget: '1',
      }),
    ).toThrow(/gpu\.teams ml: gpuQuota of pool h100 must be a finite number/);
  });
});
