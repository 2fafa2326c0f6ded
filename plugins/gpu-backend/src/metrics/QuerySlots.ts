interface Waiter {
  order: number;
  ahead: boolean;
  wake: () => void;
}

/** One API request's access to the {@link QuerySlots}: its queries in flight and waiting. */
export class QueryParty {
  /** @internal */
  running = 0;
  /** @internal */
  readonly waiting: Waiter[] = [];

  constructor(private readonly slots: QuerySlots, readonly share: number) {}

  /** This party's queries running now. */
  get active(): number {
    return this.running;
  }

  /**
   * Runs `task` when this party gets a slot, releasing it when the task settles. Rejects with the signal's reason,
   * without running `task`, when `signal` aborts before then. A task `ahead` goes before this party's waiting tasks
   * that are not (after those that are): a request's slowest queries start first, so it ends sooner.
   */
  async run<T>(
    task: () => Promise<T>,
    signal?: AbortSignal,
    ahead = false,
  ): Promise<T> {
    await this.acquire(signal, ahead);
    try {
      return await task();
    } finally {
      this.slots.release(this);
    }
  }

  /** Whether a waiting task goes before a new one (`ahead` or not). */
  private before(ahead: boolean): boolean {
    return ahead ? this.waiting[0]?.ahead === true : this.waiting.length > 0;
  }

  private acquire(
    signal: AbortSignal | undefined,
    ahead: boolean,
  ): Promise<void> {
    signal?.throwIfAborted();
    if (!this.before(ahead) && this.slots.tryTake(this)) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        order: this.slots.enqueue(this),
        ahead,
        wake: () => {},
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) {
          this.waiting.splice(index, 1);
          this.slots.dequeued(this);
        }
        reject(signal!.reason);
      };
      waiter.wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const at = ahead
        ? this.waiting.findIndex(w => !w.ahead)
        : this.waiting.length;
      this.waiting.splice(at < 0 ? this.waiting.length : at, 0, waiter);
    });
  }
}

/** When `party`'s longest-waiting task was queued (its first task is not the oldest when a later one went ahead). */
function oldestWaiting(party: QueryParty): number {
  let oldest = Infinity;
  for (const waiter of party.waiting) oldest = Math.min(oldest, waiter.order);
  return oldest;
}

/**
 * The process's PromQL query slots (`gpu.prometheus.concurrency.overall`), shared between API requests: each request
 * takes its slots through a {@link QueryParty} of its own with a `share` (`gpu.prometheus.concurrency.perRequest`).
 *
 * - A request with fewer than `share` queries in flight takes any free slot at once.
 * - A request with `share` or more in flight takes a free slot only while more than `share` slots are free, so a
 *   request alone uses up to `overall - share` slots (12 of 16 by default) and `share` slots stay free for the next
 *   request, which starts at once even when the first one's queries are slow (a slow Prometheus takes seconds per
 *   query; a newcomer waiting behind them would be cut by its deadline before it sent anything).
 * - When queries wait, a freed slot goes to the waiting request with the fewest queries in flight that may take it by
 *   the two rules above (the one whose oldest query has waited longest among equals; a request's own queries in
 *   order, its range queries first): requests that wait share the slots evenly.
 *
 * The share is then a fairness cap that binds only when other requests want slots, not a fixed limit per request
 * (issue 22: with 4 in flight per request, a 30-day cost card alone sent its 27 queries 4 at a time while 12 slots
 * stayed free). With `share >= max`, a request alone may take every slot and none is kept for the next one. A waiting
 * query gives up its place when its signal aborts.
 */
export class QuerySlots {
  private running = 0;
  private order = 0;
  /** Parties with queries waiting. */
  private readonly waitingParties = new Set<QueryParty>();

  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) {
      throw new RangeError(
        `QuerySlots size must be a positive integer, got ${max}`,
      );
    }
  }

  /** Queries running now. */
  get active(): number {
    return this.running;
  }

  /** Queries waiting for a slot now. */
  get queued(): number {
    let count = 0;
    for (const party of this.waitingParties) count += party.waiting.length;
    return count;
  }

  /** A new party (one API request's client) whose queries share these slots with `share` as its fair share. */
  party(share: number): QueryParty {
    if (!(Number.isInteger(share) && share >= 1)) {
      throw new RangeError(
        `A party's share must be a positive integer, got ${share}`,
      );
    }
    return new QueryParty(this, share);
  }

  /** Whether `party` may take one more slot now. */
  private mayTake(party: QueryParty): boolean {
    const free = this.max - this.running;
    return free > 0 && (party.running < party.share || free > party.share);
  }

  /** @internal Takes a slot for `party` now if the rules allow it (the party checks none of its own waits before). */
  tryTake(party: QueryParty): boolean {
    if (!this.mayTake(party)) return false;
    this.running += 1;
    party.running += 1;
    return true;
  }

  /** @internal Queues a waiter of `party`; returns its order number. */
  enqueue(party: QueryParty): number {
    this.waitingParties.add(party);
    this.order += 1;
    return this.order;
  }

  /** @internal A waiter left its queue (aborted). */
  dequeued(party: QueryParty): void {
    if (party.waiting.length === 0) this.waitingParties.delete(party);
    this.dispatch();
  }

  /** @internal A query of `party` ended: its slot goes to whoever may take it. */
  release(party: QueryParty): void {
    this.running -= 1;
    party.running -= 1;
    this.dispatch();
  }

  /** Hands free slots to waiting queries: fewest in flight first, then the longest waiting. */
  private dispatch(): void {
    for (;;) {
      let next: QueryParty | undefined;
      for (const party of this.waitingParties) {
        if (!this.mayTake(party)) continue;
        if (
          !next ||
          party.running < next.running ||
          (party.running === next.running &&
            oldestWaiting(party) < oldestWaiting(next))
        ) {
          next = party;
        }
      }
      if (!next) return;
      const waiter = next.waiting.shift()!;
      if (next.waiting.length === 0) this.waitingParties.delete(next);
      this.running += 1;
      next.running += 1;
      waiter.wake();
    }
  }
}
