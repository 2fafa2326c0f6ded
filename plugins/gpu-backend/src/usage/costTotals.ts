import {
  AttributedValue,
  costBreakdown,
  CostFigures,
  Recommendation,
  ServiceCostSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';

/** Allocation split into usage and idle by utilisation (0 to 1). */
export function split(
  allocationMicros: number,
  utilisation: number,
): CostFigures {
  const { usage, idle } = costBreakdown(
    allocationMicros,
    Math.min(1, Math.max(0, utilisation)),
  );
  return { allocationMicros, usageMicros: usage, idleMicros: idle };
}

/**
 * The utilisation a usage cost bills: what was measured, over the share of the window it was measured in
 * (`coverage`); the uncovered rest of the allocation is not extrapolated and counts as idle.
 */
export function billedUtilisation(utilisation: AttributedValue): number {
  return utilisation.value * (utilisation.coverage ?? 1);
}

export function totalsOf(summaries: ServiceCostSummary[]) {
  const usageKnown = summaries.every(s => s.usageMicros !== undefined);
  const figures: CostFigures = {
    allocationMicros: summaries.reduce((t, s) => t + s.allocationMicros, 0),
    reservedMicros: summaries.reduce((t, s) => t + s.reservedMicros, 0),
    ...(usageKnown
      ? {
          usageMicros: summaries.reduce((t, s) => t + s.usageMicros!, 0),
          idleMicros: summaries.reduce((t, s) => t + s.idleMicros!, 0),
        }
      : {}),
  };
  return {
    figures,
    monthToDate: summaries.reduce((t, s) => t + s.monthToDateMicros, 0),
    projected: summaries.reduce((t, s) => t + s.projectedMonthMicros, 0),
    spotSaving: summaries.reduce((t, s) => t + (s.spotSavingMicros ?? 0), 0),
  };
}

export function burn(monthToDate: number, projected: number, budget: number) {
  return budget > 0
    ? {
        budgetBurn: monthToDate / budget,
        projectedBudgetBurn: projected / budget,
      }
    : {};
}

export function monthElapsed(now: DateTime): number {
  const start = now.startOf('month');
  const end = start.plus({ months: 1 });
  return (
    now.diff(start).as('milliseconds') / end.diff(start).as('milliseconds')
  );
}

const SEVERITY = { critical: 0, warning: 1, info: 2 };

export function sortRecommendations(list: Recommendation[]): Recommendation[] {
  return list.sort(
    (a, b) =>
      SEVERITY[a.severity] - SEVERITY[b.severity] ||
      b.monthlySavingMicros - a.monthlySavingMicros ||
      a.serviceName.localeCompare(b.serviceName),
  );
}
