import { allocationCost } from './allocationCost';
import {
  capacityUtilisation,
  costPerThousandTokens,
  costPerThousandTokensAtRate,
  tokenPrices,
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

describe('the report summariser at $5.40 an hour', () => {
  // 5.40 USD/h = 5,400,000 micro-dollars; 1,500 tokens/s = 5.4 M tokens/h, so 1 micro-dollar per output token.
  const hourly = 5_400_000;

  it('costs exactly 2.5x the ideal per 1,000 tokens at 600 of 1,500 tokens/s', () => {
    const ideal = costPerThousandTokensAtRate(hourly, 1500);
    const real = costPerThousandTokensAtRate(hourly, 600);
    expect(ideal).toBe(1000); // 5,400,000 x 1,000 / 5,400,000
    expect(real).toBe(2500); // 5,400,000 x 1,000 / 2,160,000
    expect(real).toBe(2.5 * 1000);
    expect(capacityUtilisation(1500, 600).utilisation).toBe(0.4);
  });

  it('prices a request and 1 M input and output tokens by the prefill/decode split', () => {
    // 600 tokens/s: 2.5 micro-dollars per output token of the hour; a request (300 output tokens) 750.
    // Output tokens carry 300 / (300 + 700 / 10) = 300/370 of it: 2.5 x 300/370 x 1e6 = 2,027,027.03.
    // Input tokens cost a tenth of that: 202,702.70.
    expect(tokenPrices(hourly, 600)).toEqual({
      costPerRequest: 750,
      costPerMillionOutputTokens: 2_027_027,
      costPerMillionInputTokens: 202_703,
    });
    // 1,500 tokens/s: 1 micro-dollar per output token; 300 per request; 1e6 x 300/370 = 810,810.81.
    expect(tokenPrices(hourly, 1500)).toEqual({
      costPerRequest: 300,
      costPerMillionOutputTokens: 810_811,
      costPerMillionInputTokens: 81_081,
    });
  });

  it('adds up: 700 input and 300 output tokens cost one request', () => {
    const prices = tokenPrices(hourly, 600)!;
    const request =
      (700 * prices.costPerMillionInputTokens +
        300 * prices.costPerMillionOutputTokens) /
      1_000_000;
    expect(request).toBeCloseTo(750, 0);
  });

  it('is undefined at 0 tokens/s and rejects a negative rate', () => {
    expect(tokenPrices(hourly, 0)).toBeUndefined();
    expect(() => tokenPrices(hourly, -1)).toThrow(/Invalid throughput -1/);
  });
});
