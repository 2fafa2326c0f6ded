import type {
  Overview,
  OverviewLeaderboard,
  OverviewServiceOrderBy,
  OverviewServiceRow,
  OverviewSummary,
  Recommendation,
  ServiceCostSummary,
} from '../api/usage';
import { OVERVIEW_WITHOUT_USAGE_NAMED } from '../api/usage';
import type { SortOrder } from '../api/governance';

/**
 * A leaderboard of the overview as asked, before paging: which one, by what and in which order, and the search.
 *
 * @public
 */
export interface OverviewLeaderboardOrder {
  leaderboard: OverviewLeaderboard;
  orderBy: OverviewServiceOrderBy;
  order: SortOrder;
  /** Trimmed; empty for every service. */
  search: string;
}

/**
 * The order of each leaderboard when none is asked: `monthToDate` for `cost`, `idle` for `waste`, most first.
 *
 * @public
 */
export const OVERVIEW_LEADERBOARD_DEFAULT_ORDER: Record<
  OverviewLeaderboard,
  OverviewServiceOrderBy
> = {
  cost: 'monthToDate',
  waste: 'idle',
};

const FIGURE: Record<
  Exclude<OverviewServiceOrderBy, 'name'>,
  (row: ServiceCostSummary) => number | undefined
> = {
  monthToDate: row => row.monthToDateMicros,
  projectedMonth: row => row.projectedMonthMicros,
  idle: row => row.idleMicros,
  costPerThousandTokens: row => row.costPerThousandTokensMicros,
  utilisation: row => row.utilisation?.value,
  peakMemory: row => row.peakMemoryFraction,
};

/** Ties go by name, then id, ascending whatever the order, so pages never overlap. */
function byNameThenId(
  a: { name: string; serviceId: string },
  b: { name: string; serviceId: string },
): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.serviceId !== b.serviceId) return a.serviceId < b.serviceId ? -1 : 1;
  return 0;
}

function comparator(orderBy: OverviewServiceOrderBy, order: SortOrder) {
  const sign = order === 'asc' ? 1 : -1;
  if (orderBy === 'name') {
    return (a: ServiceCostSummary, b: ServiceCostSummary) =>
      sign * byNameThenId(a, b);
  }
  const figure = FIGURE[orderBy];
  return (a: ServiceCostSummary, b: ServiceCostSummary) => {
    const x = figure(a);
    const y = figure(b);
    // Without the figure: last, whichever the order.
    if (x === undefined || y === undefined) {
      if (x !== y) return x === undefined ? 1 : -1;
      return byNameThenId(a, b);
    }
    return sign * (x - y) || byNameThenId(a, b);
  };
}

function matches(row: ServiceCostSummary, needle: string): boolean {
  return [
    row.name,
    row.namespace,
    row.team,
    row.tier,
    row.pool,
    row.migProfile ?? '',
  ].some(text => text.toLocaleLowerCase('en-US').includes(needle));
}

/** Each service's recommendation that saves most (the first of equals in the overview's order). */
function bestRecommendations(
  recommendations: Recommendation[],
): Map<string, Recommendation> {
  const best = new Map<string, Recommendation>();
  for (const r of recommendations) {
    const current = best.get(r.serviceId);
    if (!current || r.monthlySavingMicros > current.monthlySavingMicros) {
      best.set(r.serviceId, r);
    }
  }
  return best;
}

/**
 * Every row of a leaderboard of `overview` in the asked order, before paging: every current service for `cost`,
 * those with an idle figure for `waste`; matching the search (part of the service's name or namespace, its team,
 * tier, MIG profile or pool, case-insensitive); services without the sorted figure last whichever the order, ties by
 * name then id; each with the recommendation that saves most.
 *
 * @public
 */
export function overviewLeaderboardRows(
  overview: Pick<Overview, 'services' | 'recommendations'>,
  asked: OverviewLeaderboardOrder,
): OverviewServiceRow[] {
  const onBoard =
    asked.leaderboard === 'waste'
      ? overview.services.filter(s => s.idleMicros !== undefined)
      : overview.services;
  const needle = asked.search.toLocaleLowerCase('en-US');
  const matching = needle
    ? onBoard.filter(s => matches(s, needle))
    : [...onBoard];
  const best = bestRecommendations(overview.recommendations);
  return matching.sort(comparator(asked.orderBy, asked.order)).map(s => {
    const recommendation = best.get(s.serviceId);
    return recommendation ? { ...s, recommendation } : s;
  });
}

/**
 * The totals of `overview` as they are, with what grows with the services counted instead of listed: services,
 * recommendations, those without usage (the first {@link OVERVIEW_WITHOUT_USAGE_NAMED} by name named); the
 * leaderboards' first pages are the caller's (`leaderboards`).
 *
 * @public
 */
export function overviewTotals(
  overview: Overview,
): Omit<OverviewSummary, 'leaderboards'> {
  const { services, withoutUsage, teams, recommendations, ...totals } =
    overview;
  const named = [...(withoutUsage ?? [])]
    .sort(byNameThenId)
    .slice(0, OVERVIEW_WITHOUT_USAGE_NAMED);
  return {
    ...totals,
    serviceCount: services.length,
    withoutUsageCount: withoutUsage?.length ?? 0,
    ...(named.length > 0 && { withoutUsage: named }),
    teams: teams.map(({ withoutUsage: teamWithout, ...team }) => ({
      ...team,
      withoutUsageCount: teamWithout?.length ?? 0,
    })),
    recommendationCount: recommendations.length,
  };
}
