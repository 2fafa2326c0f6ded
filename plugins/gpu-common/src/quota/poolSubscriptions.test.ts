import { parsePlatform } from '../platform/parsePlatform';
import { poolSubscriptions } from './poolSubscriptions';

const platform = parsePlatform({
  pools: [
    {
      name: 'h100',
      gpuModel: 'H100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      pricePerNodeHour: '55.04',
    },
    {
      name: 'l4',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 6,
      pricePerNodeHour: '0.8',
    },
  ],
});

describe('poolSubscriptions', () => {
  it('flags a pool whose quotas together exceed its capacity, with the figures', () => {
    const subscriptions = poolSubscriptions(
      platform,
      [
        {
          team: 'ml',
          gpuUnits: { h100: 6 * 5040, l4: 2 * 5040 },
          monthlyBudgetMicros: 0,
        },
        { team: 'nlp', gpuUnits: { h100: 3 * 5040 }, monthlyBudgetMicros: 0 },
        { team: 'web', gpuUnits: { h100: 0 }, monthlyBudgetMicros: 0 },
      ],
      { h100: { units: 5 * 5040, unitsByProfile: {} } },
    );

    expect(subscriptions).toEqual([
      {
        pool: 'h100',
        capacityGpuEquivalents: 8,
        quotaGpuEquivalents: 9,
        teams: 2,
        heldGpuEquivalents: 5,
        oversubscribed: true,
      },
      {
        pool: 'l4',
        capacityGpuEquivalents: 6,
        quotaGpuEquivalents: 2,
        teams: 1,
        heldGpuEquivalents: 0,
        oversubscribed: false,
      },
    ]);
  });

  it('does not flag quotas that add up to exactly the capacity', () => {
    const [h100] = poolSubscriptions(
      platform,
      [
        { team: 'ml', gpuUnits: { h100: 4 * 5040 }, monthlyBudgetMicros: 0 },
        { team: 'nlp', gpuUnits: { h100: 4 * 5040 }, monthlyBudgetMicros: 0 },
      ],
      {},
    );
    expect(h100.oversubscribed).toBe(false);
    expect(h100.quotaGpuEquivalents).toBe(8);
  });
});
