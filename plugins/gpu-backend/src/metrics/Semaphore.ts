/**
 * A counting semaphore: at most `max` tasks run at once, the others wait in FIFO order. Used to bound concurrent
 * PromQL HTTP requests per API request and per process. A waiting task gives up its place when its signal aborts.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  /** Tasks waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) {
      throw new RangeError(
        `Semaphore size must be a positive integer, got ${max}`,
      );
    }
  }

  /** Tasks running now. */
  get active(): number {
    return this.running;
  }

  /**
   * Runs `task` when a slot is free, releasing the slot when it settles. Rejects with the signal's reason, without
   * running `task`, when `signal` aborts before a slot is free.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.running < this.max) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      let wake = () => {};
      const onAbort = () => {
        const index = this.waiting.indexOf(wake);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal!.reason);
      };
      wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(wake);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      // The slot passes straight to the next task: `running` is unchanged.
      next();
    } else {
      this.running -= 1;
    }
  }
}
