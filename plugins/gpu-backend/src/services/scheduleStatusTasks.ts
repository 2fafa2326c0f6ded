import type {
  LoggerService,
  RootConfigService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { readDurationFromConfig } from '@backstage/config';
import { durationToMilliseconds, HumanDuration } from '@backstage/types';
import type { InterruptedApplyResumer } from './InterruptedApplyResumer';
import type { ServiceStatusRefresher } from './ServiceStatusRefresher';
import type { BatchJobs } from '../batch/BatchJobs';

/** Id of the scheduled status refresh. */
export const STATUS_REFRESH_TASK_ID = 'gpu-status-refresh';

/** Id of the scheduled resume of interrupted applies. */
export const APPLY_RESUME_TASK_ID = 'gpu-apply-resume';

/** Scheduled task id of the release of finished batch jobs' reservations. */
export const BATCH_RELEASE_TASK_ID = 'gpu-batch-release';

/** How often the status refresh runs when `gpu.statusRefresh.frequency` is not set. */
export const DEFAULT_STATUS_REFRESH_FREQUENCY: HumanDuration = { seconds: 15 };

/** Longest live read of one service's cluster status when `gpu.statusRefresh.timeout` is not set. */
export const DEFAULT_STATUS_READ_TIMEOUT: HumanDuration = { seconds: 5 };

/** Age of an `applying` service that counts as interrupted when `gpu.apply.resumeAfter` is not set. */
export const DEFAULT_RESUME_AFTER: HumanDuration = { minutes: 2 };

/** How long the reconciler retries an apply the cluster could not take for a passing reason, when `gpu.apply.retryFor` is not set. */
export const DEFAULT_APPLY_RETRY_FOR: HumanDuration = { minutes: 5 };

/** How long a provisional service waits for its confirmation when `gpu.services.confirmWithin` is not set. */
export const DEFAULT_CONFIRM_WITHIN: HumanDuration = { hours: 1 };

/** How often unconfirmed provisional services are looked for when `gpu.services.confirmationCheckFrequency` is not set. */
export const DEFAULT_CONFIRMATION_CHECK_FREQUENCY: HumanDuration = {
  minutes: 1,
};

/** Resumes of one interrupted apply when `gpu.apply.resumeAttempts` is not set. */
export const DEFAULT_RESUME_ATTEMPTS = 3;

/** How long an open pull request of a GitOps service holds its reservation when not configured. */
export const DEFAULT_MERGE_WITHIN: HumanDuration = { days: 7 };

/** How often GitOps pull requests and prunes are read when not configured. */
export const DEFAULT_GITOPS_CHECK_FREQUENCY: HumanDuration = { minutes: 1 };

/** The status refresh and apply resume settings. */
export interface StatusSettings {
  refreshFrequency: HumanDuration;
  readTimeoutMs: number;
  resumeAfterMs: number;
  resumeAttempts: number;
  /** How long the reconciler retries an apply that failed for a passing reason. */
  applyRetryForMs: number;
  /** How long a provisional service waits for its confirmation. */
  confirmWithinMs: number;
  /** How often the `gpu-confirmation-expiry` task looks for provisional services past their time. */
  confirmationCheckFrequency: HumanDuration;
  /** GitOps: how long an open pull request holds its service's reservation (`gpu.gitops.mergeWithin`). */
  mergeWithinMs: number;
  /** GitOps: how often the `gpu-gitops-follow` task reads pull requests and prunes (`gpu.gitops.checkFrequency`). */
  gitopsCheckFrequency: HumanDuration;
}

function duration(
  config: RootConfigService,
  key: string,
  fallback: HumanDuration,
): HumanDuration {
  if (!config.has(key)) {
    return fallback;
  }
  const value = readDurationFromConfig(config, { key });
  if (durationToMilliseconds(value) <= 0) {
    throw new Error(`Invalid config at ${key}: must be longer than zero`);
  }
  return value;
}

/** Reads `gpu.statusRefresh`, `gpu.apply` and `gpu.services`; throws naming the key on a bad value. */
export function readStatusSettings(config: RootConfigService): StatusSettings {
  const resumeAttempts =
    config.getOptionalNumber('gpu.apply.resumeAttempts') ??
    DEFAULT_RESUME_ATTEMPTS;
  if (
    !Number.isInteger(resumeAttempts) ||
    resumeAttempts < 0 ||
    resumeAttempts > 100
  ) {
    throw new Error(
      `Invalid config at gpu.apply.resumeAttempts: an integer from 0 to 100; got ${resumeAttempts}`,
    );
  }
  return {
    refreshFrequency: duration(
      config,
      'gpu.statusRefresh.frequency',
      DEFAULT_STATUS_REFRESH_FREQUENCY,
    ),
    readTimeoutMs: durationToMilliseconds(
      duration(
        config,
        'gpu.statusRefresh.timeout',
        DEFAULT_STATUS_READ_TIMEOUT,
      ),
    ),
    resumeAfterMs: durationToMilliseconds(
      duration(config, 'gpu.apply.resumeAfter', DEFAULT_RESUME_AFTER),
    ),
    resumeAttempts,
    applyRetryForMs: durationToMilliseconds(
      duration(config, 'gpu.apply.retryFor', DEFAULT_APPLY_RETRY_FOR),
    ),
    confirmWithinMs: durationToMilliseconds(
      duration(config, 'gpu.services.confirmWithin', DEFAULT_CONFIRM_WITHIN),
    ),
    confirmationCheckFrequency: duration(
      config,
      'gpu.services.confirmationCheckFrequency',
      DEFAULT_CONFIRMATION_CHECK_FREQUENCY,
    ),
    mergeWithinMs: durationToMilliseconds(
      duration(config, 'gpu.gitops.mergeWithin', DEFAULT_MERGE_WITHIN),
    ),
    gitopsCheckFrequency: duration(
      config,
      'gpu.gitops.checkFrequency',
      DEFAULT_GITOPS_CHECK_FREQUENCY,
    ),
  };
}

/**
 * Schedules the status refresh (`gpu-status-refresh`: `starting` and `ready` services follow their Deployment's
 * availability), the resume of interrupted applies (`gpu-apply-resume`) and, with `batchJobs`, the release of the
 * reservations of batch jobs that finished or are gone from their cluster (`gpu-batch-release`), all at the refresh
 * frequency and `global`: one backend replica runs each at a time. Every status write they make is a compare-and-set, so a replica
 * that runs late, or a request changing the same service, is never overwritten. Both first run shortly after start.
 *
 * The resume's timeout, which is how long the scheduler's lock of a replica that died while running it keeps the
 * others out, is `gpu.apply.resumeAfter`: the lease the resume itself gives a stopped replica's applies. Longer would
 * not help a run: a service it claimed and is still applying after `resumeAfter` counts as interrupted for the other
 * replicas anyway (each claim is a compare-and-set, so one run overtaking another applies nothing twice).
 */
export async function scheduleStatusTasks(options: {
  scheduler: SchedulerService;
  statuses: ServiceStatusRefresher;
  resumer: InterruptedApplyResumer;
  settings: StatusSettings;
  logger: LoggerService;
  /**
   * Batch jobs whose reservations are released once their Job finished or is gone (apply clusters, and GitOps ones
   * read with a read-only credential).
   */
  batchJobs?: Pick<BatchJobs, 'releaseFinished'>;
}): Promise<void> {
  const { scheduler, statuses, resumer, settings, logger, batchJobs } = options;
  await scheduler.scheduleTask({
    id: APPLY_RESUME_TASK_ID,
    frequency: settings.refreshFrequency,
    timeout: { milliseconds: settings.resumeAfterMs },
    initialDelay: { seconds: 5 },
    scope: 'global',
    fn: async () => {
      const { resumed, gaveUp } = await resumer.resumeInterruptedApplies();
      if (resumed.length || gaveUp.length) {
        logger.info('Resumed interrupted GPU service applies', {
          resumed: resumed.map(r => `${r.id}:${r.status}`).join(', '),
          gaveUp: gaveUp.join(', '),
        });
      }
    },
  });
  await scheduler.scheduleTask({
    id: STATUS_REFRESH_TASK_ID,
    frequency: settings.refreshFrequency,
    timeout: { minutes: 5 },
    initialDelay: { seconds: 5 },
    scope: 'global',
    fn: async () => {
      const { checked, changed, unreadable } = await statuses.refreshStatuses();
      if (changed.length || unreadable.length) {
        logger.info('Refreshed GPU service statuses from the cluster', {
          checked,
          changed: changed.length,
          unreadable: unreadable.length,
        });
      }
    },
  });
  if (batchJobs) {
    await scheduler.scheduleTask({
      id: BATCH_RELEASE_TASK_ID,
      frequency: settings.refreshFrequency,
      timeout: { minutes: 5 },
      initialDelay: { seconds: 5 },
      scope: 'global',
      fn: async () => {
        const { released, unreadable } = await batchJobs.releaseFinished();
        if (released.length || unreadable.length) {
          logger.info('Released the GPU quota of finished batch jobs', {
            released: released.map(r => `${r.id}: ${r.reason}`).join(', '),
            unreadable: unreadable.join(', '),
          });
        }
      },
    });
  }
}
