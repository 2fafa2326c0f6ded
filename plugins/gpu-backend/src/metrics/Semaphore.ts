/**
 * A counting semaphore: at most `max` tasks run at once, the others wait in FIFO order. Used to bound concurrent
 * PromQL HTTP requests per API request and per process.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

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

  /** Runs `task` when a slot is free, releasing the slot when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.max) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise(resolve => this.waiting.push(resolve));
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
