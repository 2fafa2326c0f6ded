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

/** A service in a total without a usage figure (spent in the window, utilisation unknown). */
export interface WithoutUsage {
  serviceId: string;
  name: string;
}

/**
 * Totals of services: allocation, reserved, month to date, projection and spot saving of every service; usage and
 * idle of every service that has them (a service that spent nothing in the window has 0 of each), with the services
 * that spent but have no usage figure named in `withoutUsage` (their allocation is in the total, not split). Usage
 * and idle are absent only when no service has them.
 */
export function totalsOf(summaries: ServiceCostSummary[]) {
  const known = summaries.filter(s => s.usageMicros !== undefined);
  const withoutUsage: WithoutUsage[] = summaries
    .filter(s => s.usageMicros === undefined)
    .map(s => ({ serviceId: s.serviceId, name: s.name }));
  const figures: CostFigures = {
    allocationMicros: summaries.reduce((t, s) => t + s.allocationMicros, 0),
    reservedMicros: summaries.reduce((t, s) => t + s.reservedMicros, 0),
    ...(known.length > 0 || summaries.length === 0
      ? {
          usageMicros: known.reduce((t, s) => t + s.usageMicros!, 0),
          idleMicros: known.reduce((t, s) => t + (s.idleMicros ?? 0), 0),
        }
      : {}),
  };
  return {
    figures,
    withoutUsage,
    aboveShare: summaries.reduce((t, s) => t + (s.aboveShareMicros ?? 0), 0),
    monthToDate: summaries.reduce((t, s) => t + s.monthToDateMicros, 0),
    projected: summaries.reduce((t, s) => t + s.projectedMonthMicros, 0),
    spotSaving: summaries.reduce((t, s) => t + (s.spotSavingMicros ?? 0), 0),
  };
}

/** Whether a service belongs in the current lists: not deleted, or deleted but spent or held within the window. */
export function isCurrent(summary: ServiceCostSummary): boolean {
  return (
    summary.status !== 'deleted' ||
    summary.allocationMicros > 0 ||
    summary.reservedMicros > 0
  );
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
