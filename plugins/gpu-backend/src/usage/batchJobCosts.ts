import {
  BatchJobCostSummary,
  BatchJobCostTotals,
  PoolPrice,
  UsageWindow,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { monthOf } from '../admission/monthSpend';
import { batchJobOutcome } from '../batch/batchJobOutcome';
import type { ReservationRecord } from '../database/types';
import { allocationInRange } from './allocation';
import { BatchJobAllocation } from './AllocationReader';
import { UsageContext } from './usageContext';

/**
 * GPU-hours the reservations held within `[startMs, endMs)`: each reservation's GPU-equivalents x the hours
 * `allocationInRange` charges it for (reservations on pools no longer configured cost nothing and count no hours).
 */
export function heldGpuHours(
  reservations: readonly ReservationRecord[],
  prices: ReadonlyMap<string, PoolPrice>,
  startMs: number,
  endMs: number,
): number {
  return reservations.reduce(
    (total, reservation) =>
      total +
      reservation.gpuEquivalents *
        allocationInRange([reservation], prices, startMs, endMs).hours,
    0,
  );
}

/** The period whose batch jobs a cost view of `window` charges: the window and the calendar month of its end. */
export function batchJobPeriod(window: UsageWindow): { from: Date; to: Date } {
  const month = monthOf(new Date(Date.parse(window.end)));
  return {
    from: new Date(Math.min(Date.parse(window.start), month.startMs)),
    to: new Date(month.endMs),
  };
}

/**
 * The batch jobs that held GPUs in the window or this month: what their reservations held at the pool's price
 * (`allocationInRange`, as the FOCUS export and the daily snapshots charge them), all of it spend. Team cost and the
 * overview both list and add up these.
 */
export function batchJobCosts(
  context: Pick<UsageContext, 'prices'>,
  jobs: readonly BatchJobAllocation[],
  window: UsageWindow,
): BatchJobCostSummary[] {
  const windowStartMs = Date.parse(window.start);
  const nowMs = Date.parse(window.end);
  const { startMs: monthStartMs, endMs: monthEndMs } = monthOf(new Date(nowMs));
  const summaries: BatchJobCostSummary[] = [];
  for (const { batchJob, reservations } of jobs) {
    const held = allocationInRange(
      reservations,
      context.prices,
      windowStartMs,
      nowMs,
    );
    const monthToDate = allocationInRange(
      reservations,
      context.prices,
      monthStartMs,
      nowMs,
    ).allocationMicros;
    const rest = allocationInRange(
      reservations,
      context.prices,
      nowMs,
      monthEndMs,
    ).allocationMicros;
    if (held.allocationMicros === 0 && monthToDate === 0 && rest === 0) {
      continue;
    }
    const heldAt = reservations
      .map(r => r.heldAt)
      .filter((t): t is string => t !== undefined)
      .sort()[0];
    const releasedAt = reservations.every(r => r.releasedAt)
      ? reservations
          .map(r => r.releasedAt!)
          .sort()
          .at(-1)
      : undefined;
    summaries.push({
      batchId: batchJob.id,
      name: batchJob.name,
      team: batchJob.team,
      namespace: batchJob.namespace,
      environment: batchJob.environment,
      pool: batchJob.pool,
      state: batchJob.state,
      outcome: batchJobOutcome(batchJob),
      ...(batchJob.finishReason ? { finishReason: batchJob.finishReason } : {}),
      gpus: batchJob.podsAtOnce * batchJob.gpusPerPod,
      gpuEquivalents: held.gpuEquivalentsAtEnd,
      gpuHours: heldGpuHours(
        reservations,
        context.prices,
        windowStartMs,
        nowMs,
      ),
      allocationMicros: held.allocationMicros,
      monthToDateMicros: monthToDate,
      projectedMonthMicros: monthToDate + rest,
      ...(heldAt ? { heldAt } : {}),
      ...(releasedAt ? { releasedAt } : {}),
    });
  }
  return summaries;
}

/** The sum of batch jobs' summaries; undefined when there are none. */
export function batchJobTotals(
  summaries: readonly BatchJobCostSummary[],
): BatchJobCostTotals | undefined {
  if (summaries.length === 0) return undefined;
  const sum = (
    key:
      | 'gpuHours'
      | 'allocationMicros'
      | 'monthToDateMicros'
      | 'projectedMonthMicros',
  ) => summaries.reduce((t, j) => t + j[key], 0);
  return {
    count: summaries.length,
    gpuHours: sum('gpuHours'),
    allocationMicros: sum('allocationMicros'),
    monthToDateMicros: sum('monthToDateMicros'),
    projectedMonthMicros: sum('projectedMonthMicros'),
  };
}

/**
 * Adds batch jobs to the totals of services (`totalsOf`): their cost to allocation, month to date and projection
 * (not to usage and idle: a batch job's utilisation is not measured). What team cost and the overview both report.
 */
export function addBatchJobs(
  totals: {
    figures: { allocationMicros: number };
    monthToDate: number;
    projected: number;
  },
  batchJobs: BatchJobCostTotals | undefined,
): void {
  if (!batchJobs) return;
  totals.figures.allocationMicros += batchJobs.allocationMicros;
  totals.monthToDate += batchJobs.monthToDateMicros;
  totals.projected += batchJobs.projectedMonthMicros;
}
