/** How long an answer serves later requests of the same key and window. */
export const MEASUREMENT_TTL_MS = 30_000;

interface Entry<T> {
  /** End of the answered window, unix seconds. */
  end: number;
  /** How long the entry serves, from when it was asked; set from its answer once it has one (see `get`). */
  ttlMs: number;
  expiresAt: number;
  value: Promise<T>;
}

/**
 * Short-lived, in-flight-sharing cache of answers about a window ending at a given time, keyed by what was asked (the
 * services' PromQL targets, window length, step and families; or one PromQL expression): `/usage` and `/cost` of a
 * service (and the team and overview views) asked within {@link MEASUREMENT_TTL_MS} of each other share one set of
 * Prometheus queries. A window ending up to the TTL earlier than the one asked for is reused; a later-ending one
 * never serves an earlier window.
 */
export class WindowCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly ttlMs = MEASUREMENT_TTL_MS,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /**
   * The cached answer of `key` for a window ending at `end`, else `compute()` (cached while it runs and after, for
   * `ttlOf(answer)` milliseconds when given, e.g. a complete measurement for its step, else the cache's TTL).
   */
  get(
    key: string,
    end: number,
    compute: () => Promise<T>,
    ttlOf?: (answer: T) => number,
  ): Promise<T> {
    const nowMs = this.clock();
    for (const [k, entry] of this.entries) {
      if (entry.expiresAt <= nowMs) this.entries.delete(k);
    }
    const hit = this.entries.get(key);
    if (hit && hit.end <= end && (end - hit.end) * 1000 <= hit.ttlMs) {
      return hit.value;
    }
    const value = compute();
    const entry: Entry<T> = {
      end,
      ttlMs: this.ttlMs,
      expiresAt: nowMs + this.ttlMs,
      value,
    };
    this.entries.set(key, entry);
    if (ttlOf) {
      value.then(
        answer => {
          entry.ttlMs = ttlOf(answer);
          entry.expiresAt = nowMs + entry.ttlMs;
        },
        () => undefined,
      );
    }
    // An answer that throws (a bug, not a Prometheus failure, which is a value) is not kept.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }
}
