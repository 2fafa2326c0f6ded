import { answeredStatus } from './metricsStatus';
import { NotFoundError } from '@backstage/errors';
import {
  parseUsd,
  TeamCost,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  addBatchJobs,
  batchJobCosts,
  batchJobPeriod,
  batchJobTotals,
} from './batchJobCosts';
import {
  burn,
  isCurrent,
  monthElapsed,
  sortRecommendations,
  totalsOf,
} from './costTotals';
import { summariseCosts } from './costSummary';
import { UsageContext } from './usageContext';

/** `GET /teams/:team/cost`: a team's services, totals against its budget, and recommendations. */
export async function teamCost(
  context: UsageContext,
  team: string,
  window: UsageWindow,
): Promise<TeamCost> {
  // The batch jobs that held GPUs in the window or this month (what `batchJobCosts` charges), not every one ever run.
  const [allocations, quota, jobs] = await Promise.all([
    context.reader.list({ team }),
    context.quotas.getQuota(team),
    context.reader.batchJobs({ team, ...batchJobPeriod(window) }),
  ]);
  const configured = context.platform.teams.find(t => t.name === team);
  if (!quota && !configured && allocations.length === 0 && jobs.length === 0) {
    throw new NotFoundError(`No GPU team ${team}`);
  }
  const budget =
    quota?.monthlyBudgetMicros ??
    (configured ? parseUsd(configured.monthlyBudget) : 0);
  const { rows, status, month, now } = await summariseCosts(
    context,
    allocations,
    window,
  );
  const totals = totalsOf(rows.map(r => r.summary));
  const batchJobs = batchJobCosts(context, jobs, window);
  addBatchJobs(totals, batchJobTotals(batchJobs));
  return {
    team,
    window,
    metrics: answeredStatus(status, context.prometheus),
    month,
    ...totals.figures,
    monthlyBudgetMicros: budget,
    monthToDateMicros: totals.monthToDate,
    projectedMonthMicros: totals.projected,
    ...burn(totals.monthToDate, totals.projected, budget),
    monthElapsed: monthElapsed(now),
    spotSavingMicros: totals.spotSaving,
    withoutUsage: totals.withoutUsage,
    aboveShareMicros: totals.aboveShare,
    services: rows.map(r => r.summary).filter(isCurrent),
    ...(batchJobs.length > 0 ? { batchJobs } : {}),
    recommendations: sortRecommendations(
      rows.filter(r => isCurrent(r.summary)).flatMap(r => r.recommendations),
    ),
  };
}
