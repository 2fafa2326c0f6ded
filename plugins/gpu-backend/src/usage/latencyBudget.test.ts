import { ServiceUsage } from '@gpu-platform/backstage-plugin-gpu-common';
import { withLatencyBudget } from './latencyBudget';

/** The usage answer's fields `withLatencyBudget` reads; the rest is carried through unchanged. */
function usage(
  metrics: ServiceUsage['metrics'],
  latency?: ServiceUsage['latency'],
): ServiceUsage {
  return {
    serviceId: 'id-summariser',
    name: 'summariser',
    metrics,
    ...(latency ? { latency } : {}),
  } as ServiceUsage;
}

describe('withLatencyBudget', () => {
  const budget = { latencyBudget: { p95Seconds: 2 } };

  it('adds nothing for a service that states no budget', () => {
    const plain = usage({ state: 'available' }, { p95Seconds: 4.2 });
    expect(withLatencyBudget(plain, {})).toBe(plain);
  });

  it("compares the window's measured p95 with the budget", () => {
    expect(
      withLatencyBudget(
        usage(
          { state: 'available' },
          { p50Seconds: 1.8, p95Seconds: 4.2, p99Seconds: 6.9 },
        ),
        budget,
      ),
    ).toEqual({
      ...usage(
        { state: 'available' },
        { p50Seconds: 1.8, p95Seconds: 4.2, p99Seconds: 6.9 },
      ),
      latencyBudget: {
        budgetP95Seconds: 2,
        state: 'over',
        measuredP95Seconds: 4.2,
      },
    });
    expect(
      withLatencyBudget(
        usage({ state: 'available' }, { p95Seconds: 2 }),
        budget,
      ).latencyBudget,
    ).toEqual({ budgetP95Seconds: 2, state: 'within', measuredP95Seconds: 2 });
  });

  it('is unknown without a measured p95, saying whether metrics or requests were missing', () => {
    expect(
      withLatencyBudget(usage({ state: 'not-configured' }), budget)
        .latencyBudget,
    ).toEqual({
      budgetP95Seconds: 2,
      state: 'unknown',
      unknownReason: 'metrics-unavailable',
    });
    expect(
      withLatencyBudget(
        usage({ state: 'available' }, { p50Seconds: 1 }),
        budget,
      ).latencyBudget,
    ).toEqual({
      budgetP95Seconds: 2,
      state: 'unknown',
      unknownReason: 'no-requests',
    });
  });
});
