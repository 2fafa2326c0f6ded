import {
  ApprovalOverage,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents } from '../common';

/**
 * What approving does to the team's quota of each pool and to its budget, one sentence each:
 * `l4-ondemand: 3 of 4 GPU-equivalents held; approving makes it 5 of 4, 1 over quota ($411.25 a month).`
 */
export function describeQuotaEffect(overage: ApprovalOverage): string[] {
  const pools = overage.pools.map(pool => {
    const after = pool.heldGpuEquivalents + pool.requestedGpuEquivalents;
    const quota = formatGpuEquivalents(pool.quotaGpuEquivalents);
    const verdict =
      pool.overGpuEquivalents > 0
        ? `${formatGpuEquivalents(
            pool.overGpuEquivalents,
          )} over quota (${formatUsd(pool.overMonthlyCostMicros)} a month)`
        : 'within quota';
    return `${pool.pool}: ${formatGpuEquivalents(
      pool.heldGpuEquivalents,
    )} of ${quota} GPU-equivalents held; approving makes it ${formatGpuEquivalents(
      after,
    )} of ${quota}, ${verdict}.`;
  });
  const { budget } = overage;
  const afterCost =
    budget.committedMonthlyCostMicros + overage.monthlyCostMicros;
  const budgetVerdict =
    budget.overMonthlyCostMicros > 0
      ? `${formatUsd(budget.overMonthlyCostMicros)} a month over budget`
      : 'within budget';
  return [
    ...pools,
    `Budget: ${formatUsd(budget.committedMonthlyCostMicros)} of ${formatUsd(
      budget.monthlyBudgetMicros,
    )} a month held; approving makes it ${formatUsd(
      afterCost,
    )}, ${budgetVerdict}.`,
  ];
}
