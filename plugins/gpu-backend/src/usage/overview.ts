import {
  allowanceFromConfig,
  Overview,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { burn, isCurrent, sortRecommendations, totalsOf } from './costTotals';
import { summariseCosts } from './costSummary';
import { poolCosts } from './poolCosts';
import { UsageContext } from './usageContext';

/** `GET /overview`: every service and team, with a constant number of PromQL queries. */
export async function overview(
  context: UsageContext,
  window: UsageWindow,
): Promise<Overview> {
  const [allocations, quotas] = await Promise.all([
    context.reader.list(),
    context.quotas.listQuotas(),
  ]);
  const { rows, status, month, queries } = await summariseCosts(
    context,
    allocations,
    window,
  );
  const summaries = rows.map(r => r.summary);
  const totals = totalsOf(summaries);
  const budgets = new Map<string, number>();
  for (const team of context.platform.teams)
    budgets.set(team.name, allowanceFromConfig(team).monthlyBudgetMicros);
  for (const quota of quotas)
    budgets.set(quota.team, quota.monthlyBudgetMicros);
  const teams = [...new Set([...budgets.keys(), ...summaries.map(s => s.team)])]
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
    metrics: status,
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
    pools: poolCosts(context.platform, allocations),
    recommendations: sortRecommendations(
      rows.filter(r => isCurrent(r.summary)).flatMap(r => r.recommendations),
    ),
  };
}
