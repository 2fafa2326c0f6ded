import { parseUsd } from '../cost/money';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import {
  describeOverage,
  describePoolCapacity,
  monthBudgetReason,
  physicalCapacityShortfall,
  poolCapacity,
  spotInProductionReason,
} from './governance';

const platform = parsePlatform(demoPlatformConfig);
const pool = (name: string) => platform.pools.find(p => p.name === name)!;

describe('poolCapacity', () => {
  it('is nodes x GPUs per node for whole-GPU and shared pools', () => {
    expect(poolCapacity(platform, pool('h100'))).toEqual({
      pool: 'h100',
      nodes: 1,
      gpusPerNode: 8,
      gpuEquivalents: 8,
      gpuUnits: 8 * 5040,
      strandedUnitsPerGpu: 0,
    });
    expect(poolCapacity(platform, pool('l4-mps')).gpuEquivalents).toBe(2);
    expect(describePoolCapacity(poolCapacity(platform, pool('h100')))).toBe(
      '8 GPUs (1 node x 8 GPUs)',
    );
    expect(
      describePoolCapacity(poolCapacity(platform, pool('l4-ondemand'))),
    ).toBe('4 GPUs (4 nodes x 1 GPU)');
  });

  it('is the slots of the layout for MIG pools', () => {
    // a100-mig: 1 node x 8 A100-80GB, each 2 x 1g.10gb + 1 x 2g.20gb + 1 x 3g.40gb. Raw weights (larger of compute
    // and memory share, x 5040): 1g.10gb max(1/7, 1/8) = 720, 2g.20gb max(2/7, 2/8) = 1440, 3g.40gb max(3/7, 4/8) =
    // 2520; 2 x 720 + 1440 + 2520 = 5400 > 5040, so each is scaled by 5040 / 5400 = 14/15: 672, 1344, 2352.
    const capacity = poolCapacity(platform, pool('a100-mig'));
    expect(capacity).toEqual({
      pool: 'a100-mig',
      nodes: 1,
      gpusPerNode: 8,
      gpuEquivalents: 8,
      gpuUnits: 8 * 5040,
      strandedUnitsPerGpu: 0,
      migSlots: {
        '1g.10gb': {
          perGpu: 2,
          instances: 16,
          gpuUnits: 672,
          gpuShare: 672 / 5040,
        },
        '2g.20gb': {
          perGpu: 1,
          instances: 8,
          gpuUnits: 1344,
          gpuShare: 1344 / 5040,
        },
        '3g.40gb': {
          perGpu: 1,
          instances: 8,
          gpuUnits: 2352,
          gpuShare: 2352 / 5040,
        },
      },
    });
    expect(describePoolCapacity(capacity, '1g.10gb')).toBe(
      '16 1g.10gb slots (1 node x 8 GPUs x 2 per GPU)',
    );
  });
});

describe('physicalCapacityShortfall', () => {
  it('refuses what needs more than the pool has, and names the capacity', () => {
    const h100 = poolCapacity(platform, pool('h100'));
    expect(physicalCapacityShortfall(h100, { gpuUnits: 8 * 5040 })).toBe(
      undefined,
    );
    expect(physicalCapacityShortfall(h100, { gpuUnits: 16 * 5040 })).toBe(
      'The request needs 16 GPU-equivalents of pool h100, more than its physical capacity of 8 GPUs ' +
        '(1 node x 8 GPUs); ask for fewer replicas or another pool',
    );
    const mig = poolCapacity(platform, pool('a100-mig'));
    expect(
      physicalCapacityShortfall(mig, {
        gpuUnits: 8 * 2352,
        migProfile: '3g.40gb',
      }),
    ).toBe(undefined);
    expect(
      physicalCapacityShortfall(mig, {
        gpuUnits: 9 * 2352,
        migProfile: '3g.40gb',
      }),
    ).toBe(
      'The request needs 9 3g.40gb slices of pool a100-mig, more than its physical capacity of 8 3g.40gb slots ' +
        '(1 node x 8 GPUs x 1 per GPU); ask for fewer replicas or another pool',
    );
    expect(
      physicalCapacityShortfall(mig, {
        gpuUnits: 2880,
        migProfile: '4g.40gb',
      }),
    ).toMatch(/^Pool a100-mig has no 4g\.40gb slots in its MIG layout/);
  });
});

describe('spotInProductionReason', () => {
  it('names spot pools in production only', () => {
    const production = platform.environments.find(
      e => e.name === 'production',
    )!;
    const dev = platform.environments.find(e => e.name === 'dev')!;
    expect(spotInProductionReason(production, pool('spot-l4'))).toBe(
      "Pool spot-l4 is spot capacity, which can be reclaimed with two minutes' notice: wrong for production " +
        'inference in production; an approver must accept that risk, or choose an on-demand pool',
    );
    expect(spotInProductionReason(dev, pool('spot-l4'))).toBeUndefined();
    expect(
      spotInProductionReason(production, pool('l4-ondemand')),
    ).toBeUndefined();
  });
});

describe('monthBudgetReason and describeOverage', () => {
  it('compares month-to-date plus the rest of the month with the budget', () => {
    const spend = {
      month: '2026-12',
      monthToDate: parseUsd('3000'),
      heldRestOfMonth: parseUsd('500'),
      secondsLeft: 3600,
    };
    expect(
      monthBudgetReason({
        team: 'search',
        monthlyBudget: parseUsd('4000'),
        spend,
        requestRestOfMonth: parseUsd('500'),
      }),
    ).toBeUndefined();
    expect(
      monthBudgetReason({
        team: 'search',
        monthlyBudget: parseUsd('4000'),
        spend,
        requestRestOfMonth: parseUsd('500.01'),
      }),
    ).toBe(
      'Team search has spent $3,000.00 in 2026-12; with what it holds ($500.00) and this request ($500.01) ' +
        'until the end of the month it would spend $4,000.01, above its $4,000.00 monthly budget',
    );
  });

  it('says what an approval grants beyond quota and budget', () => {
    const overage = {
      computedAt: '2026-12-21T00:00:00.000Z',
      overQuota: true,
      monthlyCostMicros: parseUsd('10000'),
      pools: [
        {
          pool: 'h100',
          quotaGpuEquivalents: 1,
          heldGpuEquivalents: 0,
          requestedGpuEquivalents: 2,
          overGpuEquivalents: 1,
          overMonthlyCostMicros: parseUsd('5000'),
          capacityGpuEquivalents: 8,
          poolHeldGpuEquivalents: 0,
        },
      ],
      budget: {
        monthlyBudgetMicros: parseUsd('4000'),
        committedMonthlyCostMicros: 0,
        overMonthlyCostMicros: parseUsd('6000'),
        month: '2026-12',
        monthToDateMicros: 0,
        projectedMonthMicros: parseUsd('3000'),
        overProjectedMicros: 0,
      },
    };
    expect(describeOverage(overage)).toBe(
      '1 GPU-equivalent over quota in pool h100 ($5,000.00 a month); $6,000.00 a month over budget',
    );
    expect(
      describeOverage({
        ...overage,
        overQuota: false,
        pools: [{ ...overage.pools[0], overGpuEquivalents: 0 }],
        budget: { ...overage.budget, overMonthlyCostMicros: 0 },
      }),
    ).toBe('');
  });
});
