import fc from 'fast-check';
import { MICROS_PER_USD, parseUsd, sumUsd } from './money';

describe('parseUsd', () => {
  it.each([
    ['0.8048', 804_800],
    ['21.958', 21_958_000],
    ['1200', 1_200_000_000],
    ['  3.5 ', 3_500_000],
    ['-0.40', -400_000],
    ['0.0000005', 0], // half-to-even: 0.5 micro rounds to 0
    ['0.0000015', 2], // 1.5 micro rounds to 2
    ['0.00000151', 2],
    ['1e3', 1_000_000_000],
    ['2.5E-3', 2_500],
    ['7.', 7_000_000],
  ])('parses %p exactly', (text, micros) => {
    expect(parseUsd(text)).toBe(micros);
  });

  it('parses numbers through their shortest decimal, not their binary value', () => {
    // 1.005 is not representable in binary: 1.005 * 1e6 === 1004999.9999999999.
    expect(1.005 * MICROS_PER_USD).not.toBe(1_005_000);
    expect(parseUsd(1.005)).toBe(1_005_000);
    expect(parseUsd(0.8048)).toBe(804_800);
    expect(parseUsd(1e-7)).toBe(0);
    expect(parseUsd(55.04)).toBe(55_040_000);
  });

  it('answers amounts of huge exponents at once, without computing their digits', () => {
    expect(() => parseUsd('1e999999999')).toThrow(/too large/);
    expect(parseUsd('1e-999999999')).toBe(0);
    expect(parseUsd('0e999999999')).toBe(0);
  });

  it.each(['', 'abc', '1,000', '$5', '1.2.3', 'NaN', 'Infinity', '1e30'])(
    'rejects %p with a message saying what is allowed',
    text => {
      expect(() => parseUsd(text)).toThrow(/USD amount/);
    },
  );

  it('round-trips any amount written with six decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), micros => {
        const negative = micros < 0;
        const abs = Math.abs(micros);
        const text = `${negative ? '-' : ''}${Math.floor(abs / 1e6)}.${String(
          abs % 1e6,
        ).padStart(6, '0')}`;
        expect(parseUsd(text)).toBe(micros);
      }),
    );
  });
});

describe('sumUsd', () => {
  it('adds 10,000 one-cent amounts to exactly 100 USD, where floats drift', () => {
    let float = 0;
    for (let i = 0; i < 10_000; i++) {
      float += 0.01;
    }
    expect(float).not.toBe(100);
    const cents = Array.from({ length: 10_000 }, () => parseUsd('0.01'));
    expect(sumUsd(cents)).toBe(100 * MICROS_PER_USD);
  });

  it('rejects amounts that are not integer micro-dollars', () => {
    expect(() => sumUsd([1, 0.5])).toThrow(/integer micro-dollars/);
    expect(() => sumUsd([Number.MAX_SAFE_INTEGER, 1])).toThrow(/below 2\^53/);
  });
});
