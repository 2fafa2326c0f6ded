import { TeamQuotaView } from '../api/governance';
import { teamQuotaLeft } from './quotaLeft';

const quota = (
  pools: Record<string, number>,
  reservedGpuEquivalents: Record<string, number>,
  monthlyBudgetMicros: number,
  reservedMonthlyCostMicros: number,
): TeamQuotaView => ({
  team: 'ml-platform',
  pools,
  monthlyBudgetMicros,
  reservedGpuEquivalents,
  reservedMonthlyCostMicros,
  updatedBy: 'user:default/alice',
  updatedAt: '2026-12-01T00:00:00.000Z',
});

describe('teamQuotaLeft', () => {
  it('leaves per pool what the quota rule leaves free, in GPU-equivalents, and the budget left', () => {
    // Two 1g MIG slices of an A100 (1/7 each) held on 4 GPU-equivalents of a100-mig.
    expect(
      teamQuotaLeft(
        quota(
          { 'a100-mig': 4, 'l4-ondemand': 2 },
          { 'a100-mig': 2 / 7, 'spot-l4': 1 },
          4_000_000_000,
          1_175_008_000,
        ),
      ),
    ).toEqual({
      gpuEquivalents: { 'a100-mig': 26 / 7, 'l4-ondemand': 2 },
      monthlyBudgetMicros: 2_824_992_000,
    });
  });

  it('never goes below 0 when more is held than the quota or the budget allows (an approved overage)', () => {
    expect(
      teamQuotaLeft(
        quota({ 'l4-ondemand': 1 }, { 'l4-ondemand': 3 }, 500_000_000, 900_000),
      ),
    ).toEqual({
      gpuEquivalents: { 'l4-ondemand': 0 },
      monthlyBudgetMicros: 499_100_000,
    });
    expect(teamQuotaLeft(quota({}, {}, 100, 250)).monthlyBudgetMicros).toBe(0);
  });
});
