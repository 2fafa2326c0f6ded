import type {
  LoggerService,
  RootConfigService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { readDurationFromConfig } from '@backstage/config';
import type { HumanDuration } from '@backstage/types';
import { KueueReconciler } from './KueueReconciler';

/** Id of the scheduled task. */
export const KUEUE_RECONCILE_TASK_ID = 'gpu-kueue-reconcile';

/** How often the reconciler runs when `gpu.reconcile.frequency` is not set. */
export const DEFAULT_RECONCILE_FREQUENCY: HumanDuration = { minutes: 10 };

/**
 * Schedules the Kueue reconciler. The task is `global`: with several backend replicas one of them runs it at a
 * time. The frequency comes from `gpu.reconcile.frequency` (`{ minutes: 5 }`, `5m` or `PT5M`).
 */
export async function scheduleKueueReconciler(options: {
  config: RootConfigService;
  scheduler: SchedulerService;
  reconciler: KueueReconciler;
  logger: LoggerService;
}): Promise<void> {
  const { config, scheduler, reconciler, logger } = options;
  const frequency = config.has('gpu.reconcile.frequency')
    ? readDurationFromConfig(config, { key: 'gpu.reconcile.frequency' })
    : DEFAULT_RECONCILE_FREQUENCY;
  await scheduler.scheduleTask({
    id: KUEUE_RECONCILE_TASK_ID,
    frequency,
    timeout: { minutes: 5 },
    initialDelay: { seconds: 15 },
    scope: 'global',
    fn: async () => {
      const reports = await reconciler.reconcile();
      logger.info('Reconciled Kueue objects', {
        clusters: reports.length,
        drifted: reports.reduce((sum, r) => sum + r.drifted.length, 0),
      });
    },
  });
}
