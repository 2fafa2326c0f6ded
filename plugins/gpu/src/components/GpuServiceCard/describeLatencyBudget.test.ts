import { describeLatencyBudget } from './describeLatencyBudget';

describe('describeLatencyBudget', () => {
  it('states the measured p95 against the budget, and whether it is kept', () => {
    expect(
      describeLatencyBudget({
        budgetP95Seconds: 2,
        state: 'over',
        measuredP95Seconds: 4.2,
      }),
    ).toBe('p95 4.20 s, budget 2 s: over budget');
    expect(
      describeLatencyBudget({
        budgetP95Seconds: 0.75,
        state: 'within',
        measuredP95Seconds: 0.7,
      }),
    ).toBe('p95 0.70 s, budget 0.75 s: within budget');
  });

  it('says why nothing is measured', () => {
    expect(
      describeLatencyBudget({
        budgetP95Seconds: 2,
        state: 'unknown',
        unknownReason: 'no-requests',
      }),
    ).toBe('p95 not measured, budget 2 s: no completed request in the window');
    expect(
      describeLatencyBudget({
        budgetP95Seconds: 2.5,
        state: 'unknown',
        unknownReason: 'metrics-unavailable',
      }),
    ).toBe('p95 not measured, budget 2.5 s: metrics unavailable');
  });
});
