import { LatencyBudgetStatus } from '@gpu-platform/backstage-plugin-gpu-common';

/** Seconds as the card writes a budget: at most two decimals, no trailing zeros (`2 s`, `0.75 s`). */
function budgetSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(2))} s`;
}

/**
 * A service's latency budget against the window's measured p95, in words: `p95 4.20 s, budget 2 s: over budget`,
 * `p95 1.40 s, budget 2 s: within budget`, or, with nothing measured, why (`p95 not measured, budget 2 s: no completed
 * request in the window`).
 */
export function describeLatencyBudget(status: LatencyBudgetStatus): string {
  const budget = `budget ${budgetSeconds(status.budgetP95Seconds)}`;
  if (status.state === 'unknown' || status.measuredP95Seconds === undefined) {
    return `p95 not measured, ${budget}: ${
      status.unknownReason === 'no-requests'
        ? 'no completed request in the window'
        : 'metrics unavailable'
    }`;
  }
  return `p95 ${status.measuredP95Seconds.toFixed(2)} s, ${budget}: ${
    status.state === 'over' ? 'over budget' : 'within budget'
  }`;
}
