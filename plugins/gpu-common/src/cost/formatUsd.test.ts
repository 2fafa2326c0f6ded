import fc from 'fast-check';
import { formatUsd, splitCents, toCents } from './formatUsd';
import { parseUsd } from './money';

describe('toCents', () => {
  it.each([
    [5_000, 0], // 0.5 cent rounds to the even 0
    [15_000, 2], // 1.5 cents rounds to the even 2
    [25_000, 2],
    [25_001, 3],
    [-15_000, -2],
    [804_800, 80],
  ])('rounds %p micro-dollars half-to-even to %p cents', (micros, cents) => {
    expect(toCents(micros)).toBe(cents);
  });
});

describe('formatUsd', () => {
  it.each([
    [0, undefined, '$0.00'],
    [1_234_565_000, undefined, '$1,234.56'],
    [1_234_575_000, undefined, '$1,234.58'],
    [-400_000, undefined, '-$0.40'],
    [-4_000, undefined, '$0.00'],
    [185, 6, '$0.000185'],
    [587_504_000, 0, '$588'],
    [1_000_000_000_000, undefined, '$1,000,000.00'],
  ] as const)('formats %p (decimals %p) as %p', (micros, decimals, text) => {
    expect(
      formatUsd(micros, decimals === undefined ? undefined : { decimals }),
    ).toBe(text);
  });

  it('rejects fractional micro-dollars', () => {
    expect(() => formatUsd(0.5)).toThrow(/integer number of micro-dollars/);
  });
});

describe('splitCents', () => {
  it('makes rounded parts add up to the rounded total', () => {
    // Each part alone rounds to 0.33; the total 1.00 needs one part to show 0.34.
    const third = parseUsd('0.333333');
    const parts = [third, third, third + 1];
    expect(parts.map(toCents)).toEqual([33, 33, 33]);
    expect(splitCents(parts)).toEqual([33, 33, 34]);
  });

  it('always adds up, for any parts', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1e12, max: 1e12 }), { maxLength: 50 }),
        parts => {
          const cents = splitCents(parts);
          const total = parts.reduce((sum, part) => sum + part, 0);
          expect(cents.reduce((sum, c) => sum + c, 0)).toBe(toCents(total));
          cents.forEach((c, i) => {
            expect(Math.abs(c * 10_000 - parts[i])).toBeLessThan(20_000);
          });
        },
      ),
    );
  });
});
