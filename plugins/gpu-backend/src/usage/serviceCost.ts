import { answeredStatus } from './metricsStatus';
import {
  compareWithManagedApi,
  DailyCost,
  heldCost,
  ServiceCost,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { ServiceAllocation } from './AllocationReader';
import { allocationInRange } from './allocation';
import { CostSnapshot } from './CostSnapshotStore';
import { summariseCosts } from './costSummary';
import { prometheusClient } from './measurement';
import {
  serviceTokenFigures,
  serviceTokenQueries,
} from './serviceTokenFigures';
import { dayOf, dayOfMillis, UsageContext } from './usageContext';

const DAY_MS = 86_400_000;

/** The stored days of a service within a window (across month boundaries), by day. */
async function windowSnapshots(
  context: UsageContext,
  serviceId: string,
  windowStart: DateTime,
  now: DateTime,
): Promise<Map<string, CostSnapshot>> {
  const fromDay = windowStart.startOf('day');
  const toDay = now.startOf('day').minus({ days: 1 });
  if (toDay < fromDay) return new Map();
  const list = await context.snapshots.list({
    serviceIds: [serviceId],
    fromDay: dayOf(fromDay),
    toDay: dayOf(toDay),
  });
  return new Map(list.map(s => [s.day, s]));
}

function snapshotEntry(snapshot: CostSnapshot): DailyCost {
  return {
    date: snapshot.day,
    source: 'snapshot',
    allocationMicros: snapshot.allocationMicros,
    ...(snapshot.usageMicros !== undefined
      ? {
          usageMicros: snapshot.usageMicros,
          idleMicros: snapshot.idleMicros,
        }
      : {}),
    ...(snapshot.utilisation !== undefined
      ? { utilisation: snapshot.utilisation }
      : {}),
    ...(snapshot.generatedTokens !== undefined
      ? { generatedTokens: snapshot.generatedTokens }
      : {}),
  };
}

/** A stored day cut to the part of it inside the window: that part's allocation, usage in the day's proportion. */
function trimmed(snapshot: CostSnapshot, allocationMicros: number): DailyCost {
  const entry = snapshotEntry(snapshot);
  const ratio =
    snapshot.allocationMicros > 0
      ? allocationMicros / snapshot.allocationMicros
      : 0;
  return {
    ...entry,
    allocationMicros,
    ...(snapshot.usageMicros !== undefined
      ? (() => {
          const usageMicros = Math.min(
            allocationMicros,
            Math.round(snapshot.usageMicros * ratio),
          );
          return { usageMicros, idleMicros: allocationMicros - usageMicros };
        })()
      : {}),
    ...(snapshot.generatedTokens !== undefined
      ? { generatedTokens: Math.round(snapshot.generatedTokens * ratio) }
      : {}),
  };
}

/** `GET /services/:id/cost`: one service's cost over a window, its month to date, daily history and recommendations. */
export async function serviceCost(
  context: UsageContext,
  allocation: ServiceAllocation,
  window: UsageWindow,
): Promise<ServiceCost> {
  const id = allocation.service.id;
  // One client for the request's queries: the token figures' four are asked beside the measurement's, within the
  // same `concurrency.perRequest` share, not after them (issue 22: they were a last round trip of their own).
  const client = prometheusClient(context);
  const windowStart = DateTime.fromISO(window.start, { zone: 'utc' });
  const windowEnd = DateTime.fromISO(window.end, { zone: 'utc' });
  // The stored days are read beside the queries, not after them.
  const [{ rows, month }, tokenAnswers, stored] = await Promise.all([
    summariseCosts(context, [allocation], window, client),
    serviceTokenQueries(context, allocation, window, client),
    windowSnapshots(context, id, windowStart, windowEnd),
  ]);
  const [row] = rows;
  const { service, reservations, spending } = allocation;
  const price = context.prices.get(service.pool);
  const daily: DailyCost[] = [];
  // Days in UTC are 86,400 s: counted in milliseconds (a luxon step per day was 2 ms of a 30-day card).
  const startMs = windowStart.toMillis();
  const nowMs = windowEnd.toMillis();
  for (
    let dayMs = windowStart.startOf('day').toMillis();
    dayMs < nowMs;
    dayMs += DAY_MS
  ) {
    const dayEndMs = dayMs + DAY_MS;
    const from = Math.max(dayMs, startMs);
    const to = Math.min(dayEndMs, nowMs);
    const date = dayOfMillis(dayMs);
    const snapshot = stored.get(date);
    if (snapshot && from === dayMs && to === dayEndMs) {
      daily.push(snapshotEntry(snapshot));
      continue;
    }
    const live = allocationInRange(
      reservations,
      context.prices,
      from,
      to,
      spending,
    );
    if (snapshot) {
      // The window holds part of the day: the part's allocation, split as the day's was.
      daily.push(trimmed(snapshot, live.allocationMicros));
      continue;
    }
    daily.push({
      date,
      source: 'live',
      allocationMicros: live.allocationMicros,
      reservedMicros: live.reservedMicros,
    });
  }
  const { summary } = row;
  const tokenFigures = await serviceTokenFigures({
    context,
    allocation,
    window,
    allocationMicros: summary.allocationMicros,
    served: row.usage,
    capacities: context.capacities,
    answers: tokenAnswers,
  });
  return {
    serviceId: service.id,
    name: service.name,
    team: service.team,
    namespace: service.namespace,
    environment: service.environment,
    status: service.status,
    tier: service.tier,
    pool: service.pool,
    ...(summary.migProfile ? { migProfile: summary.migProfile } : {}),
    window,
    metrics: answeredStatus(row.status, context.prometheus),
    gpuEquivalents: summary.gpuEquivalents,
    gpuHourPriceMicros: price?.gpuHour ?? 0,
    accrualBasis: summary.accrualBasis,
    ...(summary.workload ? { workload: summary.workload } : {}),
    allocatedHours: row.held.hours,
    reservedHours: row.held.reservedHours,
    allocationMicros: summary.allocationMicros,
    reservedMicros: summary.reservedMicros,
    ...(summary.usageMicros !== undefined
      ? { usageMicros: summary.usageMicros, idleMicros: summary.idleMicros }
      : {}),
    ...(summary.utilisation ? { utilisation: summary.utilisation } : {}),
    ...(summary.usageMicros !== undefined && summary.allocationMicros > 0
      ? { idleShare: summary.idleMicros! / summary.allocationMicros }
      : {}),
    ...(summary.spotSavingMicros !== undefined
      ? { spotSavingMicros: summary.spotSavingMicros }
      : {}),
    ...(summary.generatedTokens !== undefined
      ? { generatedTokens: summary.generatedTokens }
      : {}),
    ...(summary.costPerThousandTokensMicros !== undefined
      ? { costPerThousandTokensMicros: summary.costPerThousandTokensMicros }
      : {}),
    ...tokenFigures,
    ...(context.managedApi && price && summary.gpuEquivalents > 0
      ? {
          managedApi: compareWithManagedApi(context.managedApi, {
            dailyCostMicros: heldCost(price, summary.gpuEquivalents, 86_400),
            tokenCosts: tokenFigures.tokenCosts,
          }),
        }
      : {}),
    monthToDate: {
      month,
      allocationMicros: row.monthToDate.allocationMicros,
      reservedMicros: row.monthToDate.reservedMicros,
      ...(row.monthToDate.usageMicros !== undefined
        ? {
            usageMicros: row.monthToDate.usageMicros,
            idleMicros: row.monthToDate.idleMicros,
          }
        : {}),
      snapshotDays: row.monthToDate.snapshotDays,
    },
    projectedMonthMicros: summary.projectedMonthMicros,
    monthlyAllocationMicros: row.monthlyAllocationMicros,
    daily,
    recommendations: row.recommendations,
  };
}
