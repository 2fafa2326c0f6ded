import { splitTokenCostByTime } from './splitTokenCostByTime';

describe('splitTokenCostByTime', () => {
  it('gives the input tokens the prefill share of the cost, the output tokens the rest', () => {
    // 10 USD; prefill took 1 of 5 GPU-seconds: 2 USD over 4M prompt tokens, 8 USD over 1M output tokens.
    expect(
      splitTokenCostByTime(
        10_000_000,
        { promptTokens: 4_000_000, generatedTokens: 1_000_000, requests: 500 },
        { prefillSeconds: 1, decodeSeconds: 4 },
      ),
    ).toEqual({
      costPerMillionInputTokens: 500_000,
      costPerMillionOutputTokens: 8_000_000,
      costPerThousandOutputTokens: 10_000,
      costPerRequest: 20_000,
    });
  });

  it('divides the cost into whole micro-dollars that add up to it', () => {
    const split = splitTokenCostByTime(
      1_000_001,
      { promptTokens: 1_000_000, generatedTokens: 1_000_000 },
      { prefillSeconds: 1, decodeSeconds: 2 },
    )!;
    expect(
      split.costPerMillionInputTokens! + split.costPerMillionOutputTokens!,
    ).toBe(1_000_001);
  });

  it('gives no split without measured time, and refuses negative figures', () => {
    expect(
      splitTokenCostByTime(
        1,
        { promptTokens: 1, generatedTokens: 1 },
        { prefillSeconds: 0, decodeSeconds: 0.0001 },
      ),
    ).toBeUndefined();
    expect(() =>
      splitTokenCostByTime(
        1,
        { promptTokens: 1, generatedTokens: 1 },
        { prefillSeconds: -1, decodeSeconds: 1 },
      ),
    ).toThrow('Invalid prefill seconds -1');
  });
});
