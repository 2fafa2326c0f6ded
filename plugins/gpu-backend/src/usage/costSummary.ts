import {
  CostFigures,
  costPerThousandTokens,
  ServiceCostSummary,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { ServiceAllocation } from './AllocationReader';
import { projectedSpending, runStateAt } from './accrual';
import { allocationInRange, monthlyAllocationAt } from './allocation';
import { billedUtilisation, split } from './costTotals';
import {
  measure,
  prometheusClient,
  serviceStatus,
  statusOfUnheld,
} from './measurement';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { monthToDateCosts } from './monthToDateCosts';
import { recommend } from './recommendations';
import { serviceSlice } from './serviceSlice';
import { UsageContext } from './usageContext';
import { unixSeconds } from './usageWindow';

/**
 * Cost rows of services over a window, plus month-to-date and recommendations. `client` is the API request's
 * Prometheus client when the caller asks more of it at the same time (`/services/:id/cost`), so all the request's
 * queries share its `concurrency.perRequest` share of the slots; else one of its own.
 */
export async function summariseCosts(
  context: UsageContext,
  allocations: ServiceAllocation[],
  window: UsageWindow,
  client: PrometheusClient | undefined = prometheusClient(context),
) {
  const now = DateTime.fromISO(window.end, { zone: 'utc' });
  const monthEnd = now.endOf('month').plus({ milliseconds: 1 });
  const [measurement, mtd] = await Promise.all([
    measure(context, client, allocations, {
      end: unixSeconds(window.end),
      seconds: window.durationSeconds,
      step: window.stepSeconds,
    }),
    monthToDateCosts(context, client, allocations, now),
  ]);
  const rows = allocations.map(allocation => {
    const { service, reservations, basis } = allocation;
    const usage = measurement.usage.get(service.id);
    const held = allocationInRange(
      reservations,
      context.prices,
      Date.parse(window.start),
      Date.parse(window.end),
      allocation.spending,
    );
    const rest = allocationInRange(
      reservations,
      context.prices,
      now.toMillis(),
      monthEnd.toMillis(),
      projectedSpending(basis),
    );
    const monthToDate = mtd.result.get(service.id)!;
    const utilisation = usage?.utilisation;
    // Nothing spent in the window: no usage, whatever the metrics say (a service torn down before it).
    let figures: CostFigures = { allocationMicros: held.allocationMicros };
    if (held.allocationMicros === 0) figures = split(0, 0);
    else if (utilisation)
      figures = split(held.allocationMicros, billedUtilisation(utilisation));
    const monthlyAllocationMicros = monthlyAllocationAt(
      reservations,
      now.toMillis(),
    );
    const slice = serviceSlice(context.platform, service);
    const recommendations = recommend({
      platform: context.platform,
      prices: context.prices,
      service,
      slice,
      usage,
      monthlyAllocationMicros,
      windowSeconds: window.durationSeconds,
    });
    const tokens = usage?.generatedTokens;
    const price = context.prices.get(service.pool);
    const summary: ServiceCostSummary = {
      serviceId: service.id,
      name: service.name,
      ...(service.entityRef ? { entityRef: service.entityRef } : {}),
      team: service.team,
      namespace: service.namespace,
      environment: service.environment,
      status: service.status,
      tier: service.tier,
      pool: service.pool,
      ...(service.placement.migProfile
        ? { migProfile: service.placement.migProfile }
        : {}),
      gpuEquivalents: held.gpuEquivalentsAtEnd,
      accrualBasis: basis,
      ...figures,
      reservedMicros: held.reservedMicros,
      ...(basis === 'cluster-status'
        ? {
            workload: runStateAt(allocation.runs, reservations, now.toMillis()),
          }
        : {}),
      ...(utilisation ? { utilisation } : {}),
      ...(usage?.peakMemoryBytes !== undefined && slice
        ? {
            peakMemoryFraction:
              usage.peakMemoryBytes /
              (slice.memoryBytes * Math.max(1, service.request.replicas)),
          }
        : {}),
      ...(tokens !== undefined ? { generatedTokens: tokens } : {}),
      ...(tokens
        ? {
            costPerThousandTokensMicros: costPerThousandTokens(
              held.allocationMicros,
              tokens,
            ),
          }
        : {}),
      ...(price?.onDemand ? { spotSavingMicros: held.spotSavingMicros } : {}),
      ...(usage?.aboveShareGpuSeconds && price
        ? {
            aboveShareMicros: Math.round(
              (price.gpuHour * usage.aboveShareGpuSeconds) / 3600,
            ),
          }
        : {}),
      monthToDateMicros: monthToDate.allocationMicros,
      projectedMonthMicros:
        monthToDate.allocationMicros + rest.allocationMicros,
    };
    return {
      allocation,
      summary,
      held,
      usage,
      monthToDate,
      monthlyAllocationMicros,
      recommendations,
      status: statusOfUnheld(
        serviceStatus(measurement, usage),
        held.hours > 0 || held.reservedHours > 0,
        service.status === 'deleted',
      ),
    };
  });
  return {
    rows,
    status: measurement.status,
    month: mtd.month,
    snapshots: mtd.snapshots,
    now,
    queries: client?.queryCount ?? 0,
  };
}
