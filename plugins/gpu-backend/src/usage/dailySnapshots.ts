import { CostFigures } from '@gpu-platform/backstage-plugin-gpu-common';
import { DateTime } from 'luxon';
import { allocationInRange } from './allocation';
import { BatchJobAllocation, ServiceAllocation } from './AllocationReader';
import { heldGpuHours } from './batchJobCosts';
import { BatchJobCostSnapshot, CostSnapshot } from './CostSnapshotStore';
import { billedUtilisation, split } from './costTotals';
import { COST_FAMILIES, measure, prometheusClient } from './measurement';
import { dayOf, UsageContext } from './usageContext';

/**
 * The cost of every service that held GPUs on the UTC day starting at `day`, measured over that day: what the
 * daily snapshot task stores. Usage is absent when Prometheus is unavailable.
 */
export async function dailySnapshots(
  context: UsageContext,
  day: DateTime,
  options: {
    skipIfStored?: CostSnapshot[];
    /** Every service with its reservations, read once for several days; read from the store when omitted. */
    services?: ServiceAllocation[];
  } = {},
): Promise<CostSnapshot[]> {
  const start = day.toUTC().startOf('day');
  const end = start.plus({ days: 1 });
  const services = options.services ?? (await context.reader.list());
  const allocations = services.filter(a =>
    a.reservations.some(
      r =>
        r.heldAt &&
        Date.parse(r.heldAt) < end.toMillis() &&
        (!r.releasedAt || Date.parse(r.releasedAt) > start.toMillis()),
    ),
  );
  const complete = new Set(
    (options.skipIfStored ?? [])
      .filter(s => s.day === dayOf(start) && s.usageMicros !== undefined)
      .map(s => s.serviceId),
  );
  if (allocations.every(a => complete.has(a.service.id))) {
    return [];
  }
  const measurement = await measure(
    context,
    prometheusClient(context),
    allocations,
    { end: Math.round(end.toSeconds()), seconds: 86400, step: 3600 },
    COST_FAMILIES,
  );
  return allocations
    .map(({ service, reservations, spending }) => {
      const held = allocationInRange(
        reservations,
        context.prices,
        start.toMillis(),
        end.toMillis(),
        spending,
      );
      const usage = measurement.usage.get(service.id);
      let figures: CostFigures = { allocationMicros: held.allocationMicros };
      if (usage?.utilisation)
        figures = split(
          held.allocationMicros,
          billedUtilisation(usage.utilisation),
        );
      else if (held.allocationMicros === 0) figures = split(0, 0);
      return {
        serviceId: service.id,
        day: dayOf(start),
        team: service.team,
        pool: service.pool,
        tier: service.tier,
        ...figures,
        ...(usage?.utilisation
          ? {
              utilisation: usage.utilisation.value,
              method: usage.utilisation.method,
            }
          : {}),
        ...(usage?.generatedTokens !== undefined
          ? { generatedTokens: usage.generatedTokens }
          : {}),
      };
    })
    .filter(s => s.allocationMicros > 0);
}

/**
 * What every batch job held on the UTC day starting at `day`: its reservations' cost at the pool's price
 * (`allocationInRange`, as team cost, the overview and the FOCUS export's batch-job rows count it) and their
 * GPU-hours; jobs that held nothing that day have no snapshot. No metrics are read.
 */
export async function dailyBatchJobSnapshots(
  context: UsageContext,
  day: DateTime,
  options: {
    /** Batch jobs with their reservations, read once for several days; read from the store when omitted. */
    batchJobs?: readonly BatchJobAllocation[];
  } = {},
): Promise<BatchJobCostSnapshot[]> {
  const start = day.toUTC().startOf('day');
  const end = start.plus({ days: 1 });
  const jobs =
    options.batchJobs ??
    (await context.reader.batchJobs({
      from: start.toJSDate(),
      to: end.toJSDate(),
    }));
  return jobs
    .map(({ batchJob, reservations }) => ({
      batchId: batchJob.id,
      day: dayOf(start),
      team: batchJob.team,
      pool: batchJob.pool,
      gpuHours: heldGpuHours(
        reservations,
        context.prices,
        start.toMillis(),
        end.toMillis(),
      ),
      allocationMicros: allocationInRange(
        reservations,
        context.prices,
        start.toMillis(),
        end.toMillis(),
      ).allocationMicros,
    }))
    .filter(s => s.allocationMicros > 0);
}
