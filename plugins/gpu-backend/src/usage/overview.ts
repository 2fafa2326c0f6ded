import { answeredStatus } from './metricsStatus';
import {
  allowanceFromConfig,
  Overview,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  addBatchJobs,
  batchJobCosts,
  batchJobPeriod,
  batchJobTotals,
} from './batchJobCosts';
import { burn, isCurrent, sortRecommendations, totalsOf } from './costTotals';
import { summariseCosts } from './costSummary';
import { poolCosts } from './poolCosts';
import { UsageContext } from './usageContext';

/**
 * `GET /overview`: every service and team, with a constant number of PromQL queries. With `cluster`, that cluster's
 * part: its services (on its pools), its pools, and the teams with a service or quota there, their figures counting
 * only what they have on it (their budget stays the whole budget, so burn is the cluster's share of it).
 *
 * Batch jobs are in it as team cost counts them (`batchJobCosts`): their cost in the totals' and their team's
 * allocation, month to date and projection (so budget burn), summed per team and per pool, and what they hold now in
 * their pool's allocated capacity.
 */
export async function overview(
  context: UsageContext,
  window: UsageWindow,
  cluster?: string,
): Promise<Overview> {
  const [everyAllocation, everyQuota, everyJob] = await Promise.all([
    context.reader.list(),
    context.quotas.listQuotas(),
    context.reader.batchJobs(batchJobPeriod(window)),
  ]);
  const platform =
    cluster === undefined
      ? context.platform
      : {
          ...context.platform,
          pools: context.platform.pools.filter(p => p.cluster === cluster),
        };
  const poolsHere = new Set(platform.pools.map(p => p.name));
  const clusterOf = (held: { cluster?: string; pool: string }) =>
    held.cluster ??
    context.platform.pools.find(p => p.name === held.pool)?.cluster;
  const allocations =
    cluster === undefined
      ? everyAllocation
      : everyAllocation.filter(a => clusterOf(a.service) === cluster);
  const jobs =
    cluster === undefined
      ? everyJob
      : everyJob.filter(j => clusterOf(j.batchJob) === cluster);
  const jobCosts = batchJobCosts(context, jobs, window);
  const jobTotals = (key: 'team' | 'pool', value: string) =>
    batchJobTotals(jobCosts.filter(j => j[key] === value));
  // Every team's budget and quota (the config's, replaced by the store's where the store has one).
  const budgets = new Map<string, number>();
  const gpuQuotas = new Map<string, Record<string, number>>();
  for (const team of context.platform.teams) {
    budgets.set(team.name, allowanceFromConfig(team).monthlyBudgetMicros);
    gpuQuotas.set(team.name, team.gpuQuota);
  }
  for (const quota of everyQuota) {
    budgets.set(quota.team, quota.monthlyBudgetMicros);
    gpuQuotas.set(quota.team, quota.pools);
  }
  const quotaHere = (team: string) =>
    Object.entries(gpuQuotas.get(team) ?? {}).some(
      ([pool, units]) => poolsHere.has(pool) && units > 0,
    );
  const { rows, status, month, queries } = await summariseCosts(
    context,
    allocations,
    window,
  );
  const summaries = rows.map(r => r.summary);
  const totals = totalsOf(summaries);
  const allJobs = batchJobTotals(jobCosts);
  addBatchJobs(totals, allJobs);
  const teamsHere = [...budgets.keys()].filter(
    team => cluster === undefined || quotaHere(team),
  );
  const teams = [
    ...new Set([
      ...teamsHere,
      ...summaries.map(s => s.team),
      ...jobCosts.map(j => j.team),
    ]),
  ]
    .sort()
    .map(team => {
      const teamTotals = totalsOf(summaries.filter(s => s.team === team));
      const teamJobs = jobTotals('team', team);
      addBatchJobs(teamTotals, teamJobs);
      const budget = budgets.get(team) ?? 0;
      return {
        team,
        ...teamTotals.figures,
        monthlyBudgetMicros: budget,
        monthToDateMicros: teamTotals.monthToDate,
        projectedMonthMicros: teamTotals.projected,
        ...burn(teamTotals.monthToDate, teamTotals.projected, budget),
        withoutUsage: teamTotals.withoutUsage,
        ...(teamJobs && { batchJobs: teamJobs }),
      };
    });
  return {
    window,
    ...(cluster !== undefined && { cluster }),
    metrics: answeredStatus(status, context.prometheus),
    queryCount: queries,
    month,
    ...totals.figures,
    monthToDateMicros: totals.monthToDate,
    projectedMonthMicros: totals.projected,
    spotSavingMicros: totals.spotSaving,
    withoutUsage: totals.withoutUsage,
    aboveShareMicros: totals.aboveShare,
    services: summaries.filter(isCurrent),
    ...(allJobs && { batchJobs: allJobs }),
    teams,
    pools: poolCosts(platform, [...allocations, ...jobs]).map(pool => {
      const poolJobs = jobTotals('pool', pool.pool);
      return poolJobs ? { ...pool, batchJobs: poolJobs } : pool;
    }),
    recommendations: sortRecommendations(
      rows.filter(r => isCurrent(r.summary)).flatMap(r => r.recommendations),
    ),
  };
}
