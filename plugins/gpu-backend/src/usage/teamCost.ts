import { answeredStatus } from './metricsStatus';
import { NotFoundError } from '@backstage/errors';
import {
  BatchJobCostSummary,
  parseUsd,
  TeamCost,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { monthOf } from '../admission/monthSpend';
import { allocationInRange } from './allocation';
import { BatchJobAllocation } from './AllocationReader';
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
  const calendarMonth = monthOf(new Date(Date.parse(window.end)));
  const [allocations, quota, jobs] = await Promise.all([
    context.reader.list({ team }),
    context.quotas.getQuota(team),
    context.reader.batchJobs({
      team,
      from: new Date(Math.min(Date.parse(window.start), calendarMonth.startMs)),
      to: new Date(calendarMonth.endMs),
    }),
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
  const jobsTotal = (
    key: 'allocationMicros' | 'monthToDateMicros' | 'projectedMonthMicros',
  ) => batchJobs.reduce((t, j) => t + j[key], 0);
  totals.figures.allocationMicros += jobsTotal('allocationMicros');
  totals.monthToDate += jobsTotal('monthToDateMicros');
  totals.projected += jobsTotal('projectedMonthMicros');
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

/**
 * The team's batch jobs that held GPUs in the window or this month: what their reservations held at the pool's price
 * (`allocationInRange`, as the FOCUS export charges them), all of it spend.
 */
function batchJobCosts(
  context: UsageContext,
  jobs: readonly BatchJobAllocation[],
  window: UsageWindow,
): BatchJobCostSummary[] {
  const nowMs = Date.parse(window.end);
  const { startMs: monthStartMs, endMs: monthEndMs } = monthOf(new Date(nowMs));
  const summaries: BatchJobCostSummary[] = [];
  for (const { batchJob, reservations } of jobs) {
    const held = allocationInRange(
      reservations,
      context.prices,
      Date.parse(window.start),
      nowMs,
    );
    const monthToDate = allocationInRange(
      reservations,
      context.prices,
      monthStartMs,
      nowMs,
    ).allocationMicros;
    const rest = allocationInRange(
      reservations,
      context.prices,
      nowMs,
      monthEndMs,
    ).allocationMicros;
    if (held.allocationMicros === 0 && monthToDate === 0 && rest === 0) {
      continue;
    }
    const heldAt = reservations
      .map(r => r.heldAt)
      .filter((t): t is string => t !== undefined)
      .sort()[0];
    const releasedAt = reservations.every(r => r.releasedAt)
      ? reservations
          .map(r => r.releasedAt!)
          .sort()
          .at(-1)
      : undefined;
    summaries.push({
      batchId: batchJob.id,
      name: batchJob.name,
      team: batchJob.team,
      namespace: batchJob.namespace,
      environment: batchJob.environment,
      pool: batchJob.pool,
      state: batchJob.state,
      gpuEquivalents: held.gpuEquivalentsAtEnd,
      allocationMicros: held.allocationMicros,
      monthToDateMicros: monthToDate,
      projectedMonthMicros: monthToDate + rest,
      ...(heldAt ? { heldAt } : {}),
      ...(releasedAt ? { releasedAt } : {}),
    });
  }
  return summaries;
}
