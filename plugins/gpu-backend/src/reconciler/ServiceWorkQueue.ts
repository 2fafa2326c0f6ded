import type { LoggerService } from '@backstage/backend-plugin-api';

/** How many services one replica drives at once when `concurrency` is not given. */
export const DEFAULT_SERVICE_CONCURRENCY = 8;

/** First pause before a service whose work threw is worked on again; doubled per failure in a row, up to a minute. */
const FAILED_WORK_BACKOFF_MS = { initial: 1_000, max: 60_000 };

/**
 * A work queue keyed by service id, as a Kubernetes controller's: an id added while it waits is not added twice, an
 * id added while it is being worked on is worked on once more afterwards (the write that added it may have come
 * after the worker read the service), and at most `concurrency` ids are worked on at once. Work is level-triggered:
 * the worker reads the service's stored desired state and drives the cluster towards it, whatever the event was.
 * Work that throws (the database or the cluster out of reach) is queued again with exponential backoff per service,
 * so no event is lost to a passing failure; a success resets the backoff.
 */
export class ServiceWorkQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly failures = new Map<string, number>();
  private readonly concurrency: number;
  private readonly backoff: { initial: number; max: number };
  private work?: (serviceId: string) => Promise<void>;

  constructor(
    private readonly logger: LoggerService,
    options: {
      concurrency?: number;
      /** Backoff of failed work (tests); 1 s doubling to 60 s when omitted. */
      failureBackoffMs?: { initial: number; max: number };
    } = {},
  ) {
    this.concurrency = options.concurrency ?? DEFAULT_SERVICE_CONCURRENCY;
    this.backoff = options.failureBackoffMs ?? FAILED_WORK_BACKOFF_MS;
  }

  /** Starts working on what is queued (and is queued later) with `work`. */
  start(work: (serviceId: string) => Promise<void>): void {
    this.work = work;
    this.pump();
  }

  /** Adds the service to the queue; returns at once. */
  add(serviceId: string): void {
    if (this.active.has(serviceId)) {
      this.dirty.add(serviceId);
      return;
    }
    if (this.queued.has(serviceId)) return;
    this.queued.add(serviceId);
    this.waiting.push(serviceId);
    this.pump();
  }

  /** Adds the service to the queue after `delayMs` (a retry with backoff); the wait keeps no process alive. */
  addAfter(serviceId: string, delayMs: number): void {
    setTimeout(() => this.add(serviceId), delayMs).unref();
  }

  /** Whether the service waits in this queue or is being worked on. */
  has(serviceId: string): boolean {
    return this.queued.has(serviceId) || this.active.has(serviceId);
  }

  /** Services waiting or being worked on. */
  get length(): number {
    return this.waiting.length + this.active.size;
  }

  /** Resolves once nothing is waiting or being worked on (tests, shutdown). */
  async idle(): Promise<void> {
    if (this.length === 0) return;
    await new Promise<void>(resolve => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (
      this.work &&
      this.active.size < this.concurrency &&
      this.waiting.length > 0
    ) {
      const id = this.waiting.shift()!;
      this.queued.delete(id);
      this.active.add(id);
      this.run(id);
    }
    if (this.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private run(id: string): void {
    this.work!(id)
      .then(
        () => {
          this.failures.delete(id);
        },
        error => {
          const failures = (this.failures.get(id) ?? 0) + 1;
          this.failures.set(id, failures);
          const delayMs = Math.min(
            this.backoff.max,
            this.backoff.initial * 2 ** (failures - 1),
          );
          this.logger.warn(
            `Reconciling a GPU service failed; trying again in ${delayMs} ms`,
            { serviceId: id, failures, error: String(error) },
          );
          this.addAfter(id, delayMs);
        },
      )
      .finally(() => {
        this.active.delete(id);
        if (this.dirty.delete(id)) {
          this.queued.add(id);
          this.waiting.push(id);
        }
        this.pump();
      });
  }
}
