import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError } from '@backstage/errors';

/** Attempts to trigger a task that is running when a write asks for it: it runs again once it has finished. */
const ATTEMPTS = 20;

/** Pause between two attempts. */
const RETRY_DELAY_MS = 500;

/**
 * Starts the scheduled loops (the platform reconcile, the service status refresh) now rather than at their next
 * period, when a write changed what they drive the cluster towards: a quota change or an approval reaches Kueue in
 * seconds, not at the next 10-minute reconcile. Uses the scheduler's `triggerTask`, which for `global` tasks marks the
 * task due in the database, so whichever replica holds the task's lock runs it. A task that is running when asked
 * may have read the store before the write: it is asked again until it has been started after the write.
 * Requests for the same task coalesce while one is pending.
 */
export class LoopTrigger {
  private readonly pending = new Set<string>();

  constructor(
    private readonly options: {
      scheduler: Pick<SchedulerService, 'triggerTask'>;
      logger: LoggerService;
      /** Pause between attempts (tests). */
      retryDelayMs?: number;
    },
  ) {}

  /** Asks each task to run now; never rejects, never waits for the run. */
  trigger(...taskIds: string[]): void {
    for (const id of taskIds) {
      if (this.pending.has(id)) continue;
      this.pending.add(id);
      this.start(id).finally(() => this.pending.delete(id));
    }
  }

  private async start(id: string): Promise<void> {
    const delay = this.options.retryDelayMs ?? RETRY_DELAY_MS;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await this.options.scheduler.triggerTask(id);
        return;
      } catch (error) {
        if (error instanceof NotFoundError) {
          // Not scheduled in this backend (no cluster to apply to): nothing to start.
          return;
        }
        if (!(error instanceof ConflictError) || attempt === ATTEMPTS) {
          this.options.logger.warn('Could not start a GPU loop after a write', {
            task: id,
            error: String(error),
          });
          return;
        }
      }
      await new Promise(resolve => setTimeout(resolve, delay));
    }
  }
}
