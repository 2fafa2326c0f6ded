import { allocationCost } from './allocationCost';
import {
  capacityUtilisation,
  costPerThousandTokens,
  costPerThousandTokensAtRate,
} from './tokenCost';

describe('the report summariser: the cost maths', () => {
  // "vLLM sustaining 1,500 output tokens/s = 5.4 M tokens/hour; at ~$1/h that is well under a cent per 1,000 output
  // tokens at full utilisation. Demand: 2 requests/s x 300 output tokens = 600 tokens/s = 40% of capacity, so the
  // real cost per 1,000 tokens is 1/0.4 = 2.5x the ideal figure."
  const hourly = allocationCost(
    { pricePerNodeHour: '1', gpusPerNode: 1 },
    1,
    1,
  );
  const capacity = 1500;
  const demand = 2 * 300;

  it('is 40% utilisation and 2.5x the ideal cost per 1,000 tokens', () => {
    const { utilisation, costFactor, saturated } = capacityUtilisation(
      capacity,
      demand,
    );
    expect(utilisation).toBe(0.4);
    expect(costFactor).toBe(2.5);
    expect(saturated).toBe(false);
  });

  it('costs well under a cent per 1,000 tokens at full utilisation, 2.5x that at demand', () => {
    const ideal = costPerThousandTokensAtRate(hourly, capacity)!;
    const real = costPerThousandTokensAtRate(hourly, demand)!;
    expect(ideal).toBe(185); // 1 USD / 5,400 = 0.000185 USD
    expect(ideal).toBeLessThan(10_000);
    expect(real).toBe(463); // 1 USD / 2,160 = 0.000463 USD
    expect(real / ideal).toBeCloseTo(2.5, 2);
    // From totals: an hour at 600 tokens/s generates 2.16 M tokens.
    expect(costPerThousandTokens(hourly, demand * 3600)).toBe(real);
  });
});

describe('capacityUtilisation', () => {
  it('caps utilisation at 1 and flags saturation', () => {
    expect(capacityUtilisation(1000, 1500)).toEqual({
      utilisation: 1,
      costFactor: 1,
      saturated: true,
    });
  });

  it('has no cost factor without demand', () => {
    expect(capacityUtilisation(1000, 0).costFactor).toBeUndefined();
  });

  it('rejects a capacity of 0 and negative demand', () => {
    expect(() => capacityUtilisation(0, 10)).toThrow(/above 0/);
    expect(() => capacityUtilisation(10, -1)).toThrow(/0 or more/);
  });
});

describe('costPerThousandTokens', () => {
  it('is undefined without tokens and rejects negative counts', () => {
    expect(costPerThousandTokens(1_000_000, 0)).toBeUndefined();
    expect(costPerThousandTokensAtRate(1_000_000, 0)).toBeUndefined();
    expect(() => costPerThousandTokens(1, -5)).toThrow(/0 or more/);
  });
});
