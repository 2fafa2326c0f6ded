import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { DateTime } from 'luxon';
import { CostSnapshotStore } from './CostSnapshotStore';
import { UsageService } from './UsageService';

/**
 * Completed days the task visits on each run: the whole month so far and then some, so month-to-date comes from
 * snapshots after the first run. Days already stored with usage cost no query.
 */
export const SNAPSHOT_LOOKBACK_DAYS = 35;

/**
 * Stores the cost of every service and batch job on every completed UTC day of the last
 * {@link SNAPSHOT_LOOKBACK_DAYS} days. Idempotent: stored days are kept, except that a service's day stored without
 * usage (Prometheus was unavailable) is completed once usage is known. Returns the rows written.
 */
export async function storeDailySnapshots(options: {
  usage: UsageService;
  snapshots: CostSnapshotStore;
  now: DateTime;
  lookbackDays?: number;
  logger?: LoggerService;
}): Promise<number> {
  const { usage, snapshots, now, logger } = options;
  const today = now.toUTC().startOf('day');
  const lookback = options.lookbackDays ?? SNAPSHOT_LOOKBACK_DAYS;
  const stored = await snapshots.list({
    fromDay: today.minus({ days: lookback }).toISODate()!,
    toDay: today.minus({ days: 1 }).toISODate()!,
  });
  const days = Array.from({ length: lookback }, (_, i) =>
    today.minus({ days: lookback - i }),
  );
  let written = 0;
  for await (const rows of usage.dailySnapshotsOf(days, {
    skipIfStored: stored,
  })) {
    written += await snapshots.save(rows, now.toJSDate());
  }
  for await (const rows of usage.dailyBatchJobSnapshotsOf(days)) {
    written += await snapshots.saveBatchJobs(rows, now.toJSDate());
  }
  logger?.info(`Stored ${written} daily GPU cost snapshots`);
  return written;
}

/** Schedules {@link storeDailySnapshots} hourly on one instance of the backend (global scope). */
export async function scheduleSnapshotTask(options: {
  scheduler: SchedulerService;
  usage: UsageService;
  snapshots: CostSnapshotStore;
  logger: LoggerService;
}): Promise<void> {
  const { scheduler, usage, snapshots, logger } = options;
  await scheduler.scheduleTask({
    id: 'gpu-cost-snapshots',
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 15 },
    initialDelay: { minutes: 1 },
    fn: async () => {
      await storeDailySnapshots({
        usage,
        snapshots,
        now: DateTime.utc(),
        logger,
      });
    },
  });
}
