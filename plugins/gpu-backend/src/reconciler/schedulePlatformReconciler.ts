import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { HumanDuration } from '@backstage/types';
import { PlatformReconciler } from './PlatformReconciler';

/**
 * Id of the scheduled task. It kept the name it had when it reconciled Kueue objects only, so a backend upgraded
 * in place keeps one task in the scheduler's table.
 */
export const PLATFORM_RECONCILE_TASK_ID = 'gpu-kueue-reconcile';

/** The former name of {@link PLATFORM_RECONCILE_TASK_ID}. */
export const KUEUE_RECONCILE_TASK_ID = PLATFORM_RECONCILE_TASK_ID;

/**
 * Schedules the platform reconciler at `frequency` (`gpu.reconcile.frequency`, see `readReconcileSettings`). The
 * task is `global`: with several backend replicas one of them runs it at a time.
 */
export async function schedulePlatformReconciler(options: {
  frequency: HumanDuration;
  scheduler: SchedulerService;
  reconciler: PlatformReconciler;
  logger: LoggerService;
}): Promise<void> {
  const { frequency, scheduler, reconciler, logger } = options;
  await scheduler.scheduleTask({
    id: PLATFORM_RECONCILE_TASK_ID,
    frequency,
    timeout: { minutes: 5 },
    initialDelay: { seconds: 15 },
    scope: 'global',
    fn: async () => {
      const reports = await reconciler.reconcile();
      logger.info('Reconciled platform objects', {
        clusters: reports.length,
        drifted: reports.reduce((sum, r) => sum + r.drifted.length, 0),
        undelivered: reports.reduce(
          (sum, r) => sum + (r.undelivered?.length ?? 0),
          0,
        ),
      });
    },
  });
}
