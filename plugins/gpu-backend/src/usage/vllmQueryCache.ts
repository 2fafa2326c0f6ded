import { QueryResult } from '../metrics/PrometheusClient';
import { MEASUREMENT_TTL_MS } from './measurementCache';

interface Entry {
  end: number;
  expiresAt: number;
  result: Promise<QueryResult<Map<string, number>>>;
}

/**
 * The per-service vLLM queries of `/cost` (sustained throughput, completed requests) shared for
 * {@link MEASUREMENT_TTL_MS}, like the window's measurement: the same PromQL asked again for a window ending up to the
 * TTL later reuses the answer (in flight or done); a later-ending one never serves an earlier window.
 */
export class VllmQueryCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = MEASUREMENT_TTL_MS,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  get(
    promql: string,
    end: number,
    run: () => Promise<QueryResult<Map<string, number>>>,
  ): Promise<QueryResult<Map<string, number>>> {
    const nowMs = this.clock();
    for (const [k, entry] of this.entries) {
      if (entry.expiresAt <= nowMs) this.entries.delete(k);
    }
    const hit = this.entries.get(promql);
    if (hit && hit.end <= end && (end - hit.end) * 1000 <= this.ttlMs) {
      return hit.result;
    }
    const result = run();
    const entry: Entry = { end, expiresAt: nowMs + this.ttlMs, result };
    this.entries.set(promql, entry);
    result.catch(() => {
      if (this.entries.get(promql) === entry) this.entries.delete(promql);
    });
    return result;
  }
}
