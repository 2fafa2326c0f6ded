import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { HumanDuration } from '@backstage/types';
import type { ServiceManager } from './ServiceManager';

/** Id of the scheduled deletion of provisional services nobody confirmed. */
export const CONFIRMATION_EXPIRY_TASK_ID = 'gpu-confirmation-expiry';

/**
 * Schedules `gpu-confirmation-expiry`: every `frequency` (`gpu.services.confirmationCheckFrequency`, once a minute by
 * default), on one replica at a time, provisional services whose template
 * run never confirmed them are deleted and their quota released ({@link ServiceManager.expireUnconfirmed}). Runs on
 * every cluster mode: a dry-run or GitOps service holds quota too.
 */
export async function scheduleConfirmationExpiry(options: {
  scheduler: SchedulerService;
  services: Pick<ServiceManager, 'expireUnconfirmed'>;
  logger: LoggerService;
  frequency: HumanDuration;
}): Promise<void> {
  const { scheduler, services, logger, frequency } = options;
  await scheduler.scheduleTask({
    id: CONFIRMATION_EXPIRY_TASK_ID,
    frequency,
    timeout: { minutes: 5 },
    initialDelay: { seconds: 10 },
    scope: 'global',
    fn: async () => {
      const expired = await services.expireUnconfirmed();
      if (expired.length) {
        logger.info(
          'Deleted provisional GPU services that were not confirmed in time',
          { services: expired.map(s => `${s.id}:${s.status}`).join(', ') },
        );
      }
    },
  });
}
