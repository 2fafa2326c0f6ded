import fc from 'fast-check';
import { allocationCost, gpuHourPrice } from './allocationCost';
import { costBreakdown, usageCost } from './costBreakdown';
import { formatUsd } from './formatUsd';
import { sumUsd } from './money';
import { monthlyCost, projectMonthlyCost } from './monthlyProjection';
import { scaleUsd } from './scaleUsd';

const l4 = { pricePerNodeHour: '0.8048', gpusPerNode: 1 };
const p4d = { pricePerNodeHour: '21.958', gpusPerNode: 8 };

describe('gpuHourPrice', () => {
  it('divides the node-hour price by the GPUs per node', () => {
    expect(gpuHourPrice(l4)).toBe(804_800);
    expect(gpuHourPrice(p4d)).toBe(2_744_750);
    expect(gpuHourPrice({ pricePerNodeHour: '1', gpusPerNode: 3 })).toBe(
      333_333,
    );
  });
});

describe('allocationCost', () => {
  it('is share x GPU-hour price x hours', () => {
    expect(allocationCost(l4, 1, 730)).toBe(587_504_000);
    expect(formatUsd(allocationCost(l4, 1, 730))).toBe('$587.50');
    // A 3g.40gb MIG slice (3/7) of a p4d GPU for a month: 2.74475 x 3/7 x 730 = 858.71464...
    expect(allocationCost(p4d, 3 / 7, 730)).toBe(858_714_643);
    // An MPS replica (1/4) for 10 hours.
    expect(allocationCost(l4, 1 / 4, 10)).toBe(2_012_000);
  });

  it('rounds only once, so a node price shared by GPUs loses nothing', () => {
    const pool = { pricePerNodeHour: '1', gpusPerNode: 3 };
    // 1/3 USD x 3 GPUs x 1 hour is exactly 1 USD, though one GPU-hour alone rounds to 333,333 micro-dollars.
    expect(allocationCost(pool, 3, 1)).toBe(1_000_000);
  });

  it('adds up over 10,000 hourly charges without drift', () => {
    const hourly = allocationCost(p4d, 1 / 7, 1);
    const charges = Array.from({ length: 10_000 }, () => hourly);
    expect(sumUsd(charges)).toBe(hourly * 10_000);
    let float = 0;
    for (let i = 0; i < 10_000; i++) {
      float += hourly / 1e6;
    }
    expect(Math.round(float * 1e6)).toBe(hourly * 10_000); // floats get the micro-dollars right…
    expect(float * 1e6).not.toBe(hourly * 10_000); // …but only after rounding away their drift
  });

  it('rejects negative shares and hours', () => {
    expect(() => allocationCost(l4, -1, 1)).toThrow(/not negative/);
    expect(() => allocationCost(l4, 1, Number.NaN)).toThrow(/not negative/);
  });
});

describe('costBreakdown', () => {
  it('splits allocation into usage and idle at a utilisation', () => {
    expect(costBreakdown(587_504_000, 0.4)).toEqual({
      allocation: 587_504_000,
      usage: 235_001_600,
      idle: 352_502_400,
    });
  });

  it('rejects utilisation outside 0 to 1', () => {
    expect(() => usageCost(100, 1.2)).toThrow(/fraction from 0 to 1/);
    expect(() => usageCost(100, -0.1)).toThrow(/fraction from 0 to 1/);
  });

  it('always adds up: allocation = usage + idle, with usage between 0 and allocation', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e13 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (allocation, utilisation) => {
          const { usage, idle } = costBreakdown(allocation, utilisation);
          expect(usage + idle).toBe(allocation);
          expect(Number.isSafeInteger(usage)).toBe(true);
          expect(usage).toBeGreaterThanOrEqual(0);
          expect(idle).toBeGreaterThanOrEqual(0);
          expect(
            Math.abs(usage - allocation * utilisation),
          ).toBeLessThanOrEqual(0.5 + allocation * 1e-12);
        },
      ),
    );
  });

  it('adds up across services: the parts of many services sum to the total of their allocations', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            share: fc.constantFrom(1, 2, 1 / 7, 2 / 7, 3 / 7, 1 / 4, 1 / 10),
            hours: fc.integer({ min: 0, max: 744 }),
            utilisation: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 40 },
        ),
        services => {
          const parts = services.map(s =>
            costBreakdown(allocationCost(p4d, s.share, s.hours), s.utilisation),
          );
          const allocation = sumUsd(parts.map(p => p.allocation));
          expect(
            sumUsd(parts.map(p => p.usage)) + sumUsd(parts.map(p => p.idle)),
          ).toBe(allocation);
        },
      ),
    );
  });
});

describe('monthly projection', () => {
  it('projects an hourly cost over 730 hours by default', () => {
    expect(monthlyCost(804_800)).toBe(587_504_000);
    expect(monthlyCost(804_800, 720)).toBe(579_456_000);
  });

  it('projects month-to-date by the elapsed fraction', () => {
    // 10 days in (240 h) with 193.15 USD spent: 193.15 x 730 / 240.
    expect(
      projectMonthlyCost({ monthToDate: 193_152_000, elapsedHours: 240 }),
    ).toBe(587_504_000);
    expect(projectMonthlyCost({ monthToDate: 5, elapsedHours: 0 })).toBe(0);
    expect(() =>
      projectMonthlyCost({ monthToDate: 5, elapsedHours: 800 }),
    ).toThrow(/0 to 730 hours/);
  });
});

describe('scaleUsd', () => {
  it('treats simple fractions as exact rationals', () => {
    expect(scaleUsd(7_000_000, [1 / 7])).toBe(1_000_000);
    expect(scaleUsd(7_000_000, [3 / 7], [3])).toBe(1_000_000);
    expect(scaleUsd(1, [0.5])).toBe(0); // half-to-even
    expect(scaleUsd(3, [0.5])).toBe(2);
    expect(scaleUsd(10, [0.1 + 0.2])).toBe(3); // 0.30000000000000004 is used as the decimal it prints
  });

  it('rounds negative amounts half-to-even too', () => {
    expect(scaleUsd(-3, [0.5])).toBe(-2);
    expect(scaleUsd(-5, [0.5])).toBe(-2);
    expect(scaleUsd(-1, [0.5])).toBe(0);
  });

  it('agrees with exact bigint arithmetic, below and beyond 2^52', () => {
    const fractions: Array<[number, number]> = [
      [1, 7],
      [3, 7],
      [2, 5],
      [1, 48],
      [7, 4],
      [22, 7],
    ];
    fc.assert(
      fc.property(
        // Up to 10^11 micro-dollars x 22 x 10,000 hours: numerators well beyond 2^52, results within range.
        fc.integer({ min: -1e11, max: 1e11 }),
        fc.constantFrom(...fractions),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 64 }),
        (amount, [n, d], hours, divisor) => {
          const numerator = BigInt(amount) * BigInt(n) * BigInt(hours);
          const denominator = BigInt(d) * BigInt(divisor);
          const magnitude = numerator < 0n ? -numerator : numerator;
          let quotient = magnitude / denominator;
          const twice = (magnitude % denominator) * 2n;
          if (
            twice > denominator ||
            (twice === denominator && quotient % 2n === 1n)
          ) {
            quotient += 1n;
          }
          const expected = Number(numerator < 0n ? -quotient : quotient);
          expect(scaleUsd(amount, [n / d, hours], [divisor])).toBe(
            expected === 0 ? 0 : expected,
          );
        },
      ),
    );
  });

  it('rejects bad divisors', () => {
    expect(() => scaleUsd(1, [], [0])).toThrow(/above 0/);
  });
});
