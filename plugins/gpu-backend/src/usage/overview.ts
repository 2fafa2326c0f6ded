import { answeredStatus } from './metricsStatus';
import {
  allowanceFromConfig,
  Overview,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { burn, isCurrent, sortRecommendations, totalsOf } from './costTotals';
import { summariseCosts } from './costSummary';
import { poolCosts } from './poolCosts';
import { UsageContext } from './usageContext';
import type { ServiceRecord } from '../database';

/**
 * `GET /overview`: every service and team, with a constant number of PromQL queries. With `cluster`, that cluster's
 * part: its services (on its pools), its pools, and the teams with a service or quota there, their figures counting
 * only what they have on it (their budget stays the whole budget, so burn is the cluster's share of it).
 */
export async function overview(
  context: UsageContext,
  window: UsageWindow,
  cluster?: string,
): Promise<Overview> {
  const [everyAllocation, everyQuota] = await Promise.all([
    context.reader.list(),
    context.quotas.listQuotas(),
  ]);
  const platform =
    cluster === undefined
      ? context.platform
      : {
          ...context.platform,
          pools: context.platform.pools.filter(p => p.cluster === cluster),
        };
  const poolsHere = new Set(platform.pools.map(p => p.name));
  const clusterOf = (service: ServiceRecord) =>
    service.cluster ??
    context.platform.pools.find(p => p.name === service.pool)?.cluster;
  const allocations =
    cluster === undefined
      ? everyAllocation
      : everyAllocation.filter(a => clusterOf(a.service) === cluster);
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
  const teamsHere = [...budgets.keys()].filter(
    team => cluster === undefined || quotaHere(team),
  );
  const teams = [...new Set([...teamsHere, ...summaries.map(s => s.team)])]
    .sort()
    .map(team => {
      const teamTotals = totalsOf(summaries.filter(s => s.team === team));
      const budget = budgets.get(team) ?? 0;
      return {
        team,
        ...teamTotals.figures,
        monthlyBudgetMicros: budget,
        monthToDateMicros: teamTotals.monthToDate,
        projectedMonthMicros: teamTotals.projected,
        ...burn(teamTotals.monthToDate, teamTotals.projected, budget),
        withoutUsage: teamTotals.withoutUsage,
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
    teams,
    pools: poolCosts(platform, allocations),
    recommendations: sortRecommendations(
      rows.filter(r => isCurrent(r.summary)).flatMap(r => r.recommendations),
    ),
  };
}
