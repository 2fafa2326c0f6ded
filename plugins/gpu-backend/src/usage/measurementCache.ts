import type { Measurement } from './measurement';

/** How long a measurement serves later requests of the same scope and window. */
export const MEASUREMENT_TTL_MS = 30_000;

interface Entry {
  /** End of the measured window, unix seconds. */
  end: number;
  expiresAt: number;
  measurement: Promise<Measurement>;
}

/**
 * Short-lived, in-flight-sharing cache of measurements, keyed by scope (the services' PromQL targets), window length,
 * step and families: `/usage` and `/cost` of a service (and the team and overview views) asked within
 * {@link MEASUREMENT_TTL_MS} of each other share one set of Prometheus queries. A window ending up to the TTL earlier
 * than the one asked for is reused; a later-ending one never is.
 */
export class MeasurementCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = MEASUREMENT_TTL_MS,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** The cached measurement of `key` for a window ending at `end`, else `measure()` (cached while it runs and after). */
  get(
    key: string,
    end: number,
    measure: () => Promise<Measurement>,
  ): Promise<Measurement> {
    const nowMs = this.clock();
    for (const [k, entry] of this.entries) {
      if (entry.expiresAt <= nowMs) this.entries.delete(k);
    }
    const hit = this.entries.get(key);
    if (hit && hit.end <= end && (end - hit.end) * 1000 <= this.ttlMs) {
      return hit.measurement;
    }
    const measurement = measure();
    const entry: Entry = { end, expiresAt: nowMs + this.ttlMs, measurement };
    this.entries.set(key, entry);
    // A measurement that throws (a bug, not a Prometheus failure) is not kept.
    measurement.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return measurement;
  }
}
