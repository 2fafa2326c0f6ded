import { CostFigures } from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { ServiceAllocation } from './AllocationReader';
import { allocationInRange } from './allocation';
import { CostSnapshot } from './CostSnapshotStore';
import { billedUtilisation, split } from './costTotals';
import { COST_FAMILIES, measure } from './measurement';
import { dayOf, UsageContext } from './usageContext';

/** A service's month-to-date cost, with how many of its days came from snapshots. */
export type MonthToDateCost = CostFigures & {
  reservedMicros: number;
  snapshotDays: number;
  tokens?: number;
};

/** Month-to-date per service: snapshots before the live range, then one measurement of the live range. */
export async function monthToDateCosts(
  context: UsageContext,
  client: PrometheusClient | undefined,
  allocations: ServiceAllocation[],
  now: DateTime,
) {
  const monthStart = now.startOf('month');
  const todayStart = now.startOf('day');
  const yesterday = todayStart.minus({ days: 1 });
  const snapshots =
    todayStart > monthStart
      ? await context.snapshots.list({
          serviceIds:
            allocations.length <= 500
              ? allocations.map(a => a.service.id)
              : undefined,
          fromDay: dayOf(monthStart),
          toDay: dayOf(yesterday),
        })
      : [];
  const byService = new Map<string, Map<string, CostSnapshot>>();
  for (const snapshot of snapshots) {
    const days =
      byService.get(snapshot.serviceId) ?? new Map<string, CostSnapshot>();
    days.set(snapshot.day, snapshot);
    byService.set(snapshot.serviceId, days);
  }
  // The live range starts at the first day of the month that held GPUs but has no snapshot.
  const monthDays: Array<{ day: string; startMs: number; endMs: number }> = [];
  for (let day = monthStart; day < todayStart; day = day.plus({ days: 1 })) {
    monthDays.push({
      day: dayOf(day),
      startMs: day.toMillis(),
      endMs: day.plus({ days: 1 }).toMillis(),
    });
  }
  let liveIndex = monthDays.length;
  for (const { service, reservations, spending } of allocations) {
    const days = byService.get(service.id);
    const firstHeld = Math.min(
      ...reservations.map(r => (r.heldAt ? Date.parse(r.heldAt) : Infinity)),
    );
    for (let i = 0; i < liveIndex; i++) {
      const { day, startMs, endMs } = monthDays[i];
      if (endMs <= firstHeld || days?.has(day)) continue;
      if (
        allocationInRange(
          reservations,
          context.prices,
          startMs,
          endMs,
          spending,
        ).allocationMicros > 0
      ) {
        liveIndex = i;
        break;
      }
    }
  }
  const liveStart =
    liveIndex < monthDays.length
      ? DateTime.fromMillis(monthDays[liveIndex].startMs, { zone: 'utc' })
      : todayStart;
  const liveDay = dayOf(liveStart);
  const liveSeconds = Math.max(
    1,
    Math.round(now.diff(liveStart).as('seconds')),
  );
  const measurement = await measure(
    context,
    client,
    allocations,
    { end: Math.round(now.toSeconds()), seconds: liveSeconds, step: 3600 },
    COST_FAMILIES,
  );
  const result = new Map<string, MonthToDateCost>();
  for (const { service, reservations, spending } of allocations) {
    const days = byService.get(service.id) ?? new Map<string, CostSnapshot>();
    const kept = [...days.values()].filter(s => s.day < liveDay);
    const live = allocationInRange(
      reservations,
      context.prices,
      liveStart.toMillis(),
      now.toMillis(),
      spending,
    );
    // Reserved time is in no snapshot: it is read from the ledger and the run periods for the whole month.
    const { reservedMicros } = allocationInRange(
      reservations,
      context.prices,
      monthStart.toMillis(),
      now.toMillis(),
      spending,
    );
    const measured = measurement.usage.get(service.id)?.utilisation;
    const utilisation = measured ? billedUtilisation(measured) : undefined;
    // Nothing held in the live range costs nothing, whatever the metrics say.
    const liveUtilisation = live.allocationMicros === 0 ? 0 : utilisation;
    const liveFigures: CostFigures =
      liveUtilisation !== undefined
        ? split(live.allocationMicros, liveUtilisation)
        : { allocationMicros: live.allocationMicros };
    const parts: CostFigures[] = [...kept, liveFigures];
    const usageKnown = parts.every(p => p.usageMicros !== undefined);
    result.set(service.id, {
      allocationMicros: parts.reduce((t, p) => t + p.allocationMicros, 0),
      reservedMicros,
      ...(usageKnown
        ? {
            usageMicros: parts.reduce((t, p) => t + p.usageMicros!, 0),
            idleMicros: parts.reduce((t, p) => t + (p.idleMicros ?? 0), 0),
          }
        : {}),
      snapshotDays: kept.length,
    });
  }
  return { month: now.toFormat('yyyy-MM'), result, snapshots: byService };
}
