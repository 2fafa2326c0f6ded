import { LatencyBudgetStatus, MetricsState } from '../api/usage';
import { LatencyBudget } from './types';

/**
 * A latency budget against the p95 measured over a window: `over` above the budget, `within` at or below it, and
 * `unknown` without a finite measured p95, because metrics are missing (`metrics-unavailable`: Prometheus not
 * configured or not answering) or because no request completed in the window (`no-requests`).
 *
 * @public
 */
export function latencyBudgetStatus(
  budget: LatencyBudget,
  measuredP95Seconds: number | undefined,
  metrics: MetricsState,
): LatencyBudgetStatus {
  const budgetP95Seconds = budget.p95Seconds;
  if (
    measuredP95Seconds === undefined ||
    !Number.isFinite(measuredP95Seconds)
  ) {
    return {
      budgetP95Seconds,
      state: 'unknown',
      unknownReason:
        metrics === 'unavailable' || metrics === 'not-configured'
          ? 'metrics-unavailable'
          : 'no-requests',
    };
  }
  return {
    budgetP95Seconds,
    state: measuredP95Seconds > budgetP95Seconds ? 'over' : 'within',
    measuredP95Seconds,
  };
}
