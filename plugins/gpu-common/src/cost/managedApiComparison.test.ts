import { ConfigReader } from '@backstage/config';
import {
  compareWithManagedApi,
  readManagedApiPrice,
} from './managedApiComparison';

const api = {
  name: 'Hosted Llama',
  inputPerMillionMicros: 200_000,
  outputPerMillionMicros: 600_000,
};

describe('readManagedApiPrice', () => {
  it('parses gpu.managedApi once into micro-dollars, and is absent when not configured', () => {
    expect(
      readManagedApiPrice(
        new ConfigReader({
          gpu: {
            managedApi: {
              name: 'Hosted Llama',
              inputPricePerMillionTokens: '0.20',
              outputPricePerMillionTokens: 0.6,
            },
          },
        }),
      ),
    ).toEqual(api);
    expect(readManagedApiPrice(new ConfigReader({ gpu: {} }))).toBeUndefined();
  });

  it('says which price is wrong', () => {
    expect(() =>
      readManagedApiPrice(
        new ConfigReader({
          gpu: {
            managedApi: {
              name: 'x',
              inputPricePerMillionTokens: 'cheap',
              outputPricePerMillionTokens: '1',
            },
          },
        }),
      ),
    ).toThrow("Invalid USD amount 'cheap'");
    expect(() =>
      readManagedApiPrice(
        new ConfigReader({
          gpu: {
            managedApi: { name: 'x', inputPricePerMillionTokens: '1' },
          },
        }),
      ),
    ).toThrow('gpu.managedApi.outputPricePerMillionTokens');
  });
});

describe('compareWithManagedApi', () => {
  it("finds the crossover from the service's measured request shape and daily cost", () => {
    // 1,000 requests of 2,000 prompt + 500 output tokens: the API charges 0.0004 + 0.0003 = 0.0007 USD a request.
    const comparison = compareWithManagedApi(api, {
      dailyCostMicros: 19_315_200,
      tokenCosts: {
        basis: 'measured',
        promptTokens: 2_000_000,
        generatedTokens: 500_000,
        requests: 1_000,
        costPerMillionInputTokensMicros: 1_000_000,
        costPerMillionOutputTokensMicros: 9_000_000,
      },
    });
    expect(comparison).toEqual({
      api,
      selfHostedInputPerMillionMicros: 1_000_000,
      selfHostedOutputPerMillionMicros: 9_000_000,
      request: { inputTokens: 2_000, outputTokens: 500, basis: 'measured' },
      managedCostPerRequestMicros: 700,
      selfHostedDailyMicros: 19_315_200,
      // 19.3152 USD a day / 0.0007 USD a request = 27,593.14: from 27,594 requests a day self-hosting costs less.
      crossoverRequestsPerDay: 27_594,
    });
  });

  it('uses the assumed 700 + 300 token request without measured requests', () => {
    const comparison = compareWithManagedApi(api, {
      dailyCostMicros: 1_000_000,
    });
    expect(comparison.request).toEqual({
      inputTokens: 700,
      outputTokens: 300,
      basis: 'assumed',
    });
    // 0.00014 + 0.00018 = 0.00032 USD a request: 1 USD a day is 3,125 requests.
    expect(comparison.managedCostPerRequestMicros).toBe(320);
    expect(comparison.crossoverRequestsPerDay).toBe(3_125);
    expect(comparison.selfHostedInputPerMillionMicros).toBeUndefined();
  });
});
