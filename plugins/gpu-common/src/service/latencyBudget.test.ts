import { GpuDomainError } from '../errors';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { latencyBudgetStatus } from './latencyBudgetStatus';
import { validateServiceRequest } from './validateServiceRequest';

const platform = parsePlatform(demoPlatformConfig);

const summariser = {
  name: 'summariser',
  team: 'search',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 1,
  environment: 'production',
};

function refusal(raw: unknown): GpuDomainError {
  try {
    validateServiceRequest(platform, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(GpuDomainError);
    expect((error as Error).name).toBe('InputError');
    return error as GpuDomainError;
  }
  throw new Error('expected validateServiceRequest to throw');
}

describe('latency budget of a service request', () => {
  it('keeps a stated budget, and leaves it out when none is stated', () => {
    expect(
      validateServiceRequest(platform, {
        ...summariser,
        latencyBudget: { p95Seconds: 2 },
      }).latencyBudget,
    ).toEqual({ p95Seconds: 2 });
    expect(
      'latencyBudget' in validateServiceRequest(platform, summariser),
    ).toBe(false);
  });

  it.each([
    [
      { p95Seconds: 0 },
      /latencyBudget\.p95Seconds: Too small: expected number to be >=0\.1/,
    ],
    [{ p95Seconds: -2 }, /latencyBudget\.p95Seconds: Too small/],
    [
      { p95Seconds: 3601 },
      /latencyBudget\.p95Seconds: Too big: expected number to be <=3600/,
    ],
    [
      { p95Seconds: '2' },
      /latencyBudget\.p95Seconds: Invalid input: expected number/,
    ],
    [{}, /latencyBudget\.p95Seconds: Invalid input: expected number/],
    [{ p95Seconds: 2, p99Seconds: 4 }, /p99Seconds: Unrecognized key/],
    [2, /latencyBudget: Invalid input: expected object/],
  ])('refuses latencyBudget %j with OUT_OF_RANGE', (latencyBudget, message) => {
    const error = refusal({ ...summariser, latencyBudget });
    expect(error.code).toBe('OUT_OF_RANGE');
    expect(error.message).toMatch(/^Invalid service request: /);
    expect(error.message).toMatch(message);
  });

  it('refuses a budget on Ollama, which exports no latency metrics', () => {
    const error = refusal({
      ...summariser,
      runtime: 'ollama',
      latencyBudget: { p95Seconds: 2 },
    });
    expect(error.code).toBe('OUT_OF_RANGE');
    expect(error.message).toBe(
      'latencyBudget needs the vllm runtime: ollama exports no request latency metrics to measure or alert on; allowed: runtime vllm, or no latencyBudget',
    );
  });
});

describe('latencyBudgetStatus', () => {
  const budget = { p95Seconds: 2 };

  it('is within at or below the budget and over above it', () => {
    expect(latencyBudgetStatus(budget, 1.4, 'available')).toEqual({
      budgetP95Seconds: 2,
      state: 'within',
      measuredP95Seconds: 1.4,
    });
    expect(latencyBudgetStatus(budget, 2, 'partial').state).toBe('within');
    expect(latencyBudgetStatus(budget, 2.01, 'available')).toEqual({
      budgetP95Seconds: 2,
      state: 'over',
      measuredP95Seconds: 2.01,
    });
  });

  it('is unknown without a measured p95, saying why', () => {
    expect(latencyBudgetStatus(budget, undefined, 'unavailable')).toEqual({
      budgetP95Seconds: 2,
      state: 'unknown',
      unknownReason: 'metrics-unavailable',
    });
    expect(
      latencyBudgetStatus(budget, undefined, 'not-configured').unknownReason,
    ).toBe('metrics-unavailable');
    expect(latencyBudgetStatus(budget, undefined, 'no-data')).toEqual({
      budgetP95Seconds: 2,
      state: 'unknown',
      unknownReason: 'no-requests',
    });
    // histogram_quantile of an empty window is NaN
    expect(latencyBudgetStatus(budget, NaN, 'available').state).toBe('unknown');
  });
});
