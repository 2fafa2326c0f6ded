import { splitTokenCost } from './splitTokenCost';

describe('splitTokenCost', () => {
  it('weighs an input token 1/10 of an output token and keeps the whole cost per 1,000 output tokens', () => {
    // $18.00 for 2,000,000 prompt and 1,000,000 generated tokens and 4,000 requests: the weighted tokens are
    // 1,000,000 + 2,000,000 / 10 = 1,200,000, so an output token costs 18 / 1.2 M = $0.000015 ($15 per million)
    // and an input token $1.50 per million; 2 M x 1.5 + 1 M x 15 = $18.
    const split = splitTokenCost(18_000_000, {
      promptTokens: 2_000_000,
      generatedTokens: 1_000_000,
      requests: 4_000,
    });
    expect(split).toEqual({
      costPerMillionInputTokens: 1_500_000,
      costPerMillionOutputTokens: 15_000_000,
      // 18 / 1,000 (thousands of output tokens)
      costPerThousandOutputTokens: 18_000,
      // 18 / 4,000
      costPerRequest: 4_500,
    });
    expect(
      2 * split.costPerMillionInputTokens! +
        1 * split.costPerMillionOutputTokens!,
    ).toBe(18_000_000);
  });

  it('agrees with the quote on its assumed request shape', () => {
    // 700 + 300 tokens a request: weighted 300 + 70 = 370 per request; $3.70 over 1,000 requests is $10 per million
    // output tokens, $1 per million input tokens, $0.0037 a request.
    expect(
      splitTokenCost(3_700_000, {
        promptTokens: 700_000,
        generatedTokens: 300_000,
        requests: 1_000,
      }),
    ).toEqual({
      costPerMillionInputTokens: 1_000_000,
      costPerMillionOutputTokens: 10_000_000,
      costPerThousandOutputTokens: 12_333,
      costPerRequest: 3_700,
    });
  });

  it('leaves out figures whose count is 0', () => {
    expect(
      splitTokenCost(1_000_000, { promptTokens: 0, generatedTokens: 0 }),
    ).toEqual({});
    expect(
      splitTokenCost(1_000_000, {
        promptTokens: 100_000,
        generatedTokens: 0,
        requests: 0,
      }),
      // Only prompt tokens: the whole $1 on 100,000 of them, $10 per million.
    ).toEqual({ costPerMillionInputTokens: 10_000_000 });
  });

  it('rejects negative and non-finite counts', () => {
    expect(() =>
      splitTokenCost(1, { promptTokens: -1, generatedTokens: 1 }),
    ).toThrow(/prompt token count -1/);
    expect(() =>
      splitTokenCost(1, {
        promptTokens: 1,
        generatedTokens: 1,
        requests: Number.NaN,
      }),
    ).toThrow(/request count NaN/);
  });
});
