import { z } from 'zod';
import { CircuitBreaker } from './CircuitBreaker';
import { PrometheusSettings } from './PrometheusConfig';
import { QueryParty, QuerySlots } from './QuerySlots';

function withWarnings(warnings: string[] | undefined) {
  return warnings ? { warnings } : {};
}

/** The time an API request gives Prometheus, shared by all its queries: the end (epoch ms) and the budget it came from. */
export interface RequestDeadline {
  at: number;
  budgetMs: number;
}

/**
 * Bounds on PromQL HTTP requests: the process-wide slots, the client's share of them (its own limit when there are
 * no shared slots), the API request's deadline and the circuit breaker of the Prometheus.
 */
export interface QueryLimits {
  /** The process's slots (`concurrency.overall`), shared fairly between clients (see {@link QuerySlots}). */
  overall?: QuerySlots;
  /**
   * `concurrency.perRequest`: with `overall`, this client's fair share (it may use more free slots while no other
   * client needs them); alone, the most queries this client has in flight.
   */
  perRequest?: number;
  deadline?: RequestDeadline;
  breaker?: CircuitBreaker;
}

/** How a query ended, for the circuit breaker: Prometheus answered, left it without an answer, or our deadline cut it. */
type Outcome = 'answered' | 'no-answer' | 'cut';

/** One series of an instant vector: its labels and value. */
export interface InstantSample {
  labels: Record<string, string>;
  value: number;
}

/** One series of a range query: its labels and `[unix seconds, value]` points. */
export interface RangeSeries {
  labels: Record<string, string>;
  points: Array<[number, number]>;
}

/**
 * What a query gives: data (with what was wrong in the answer but could be skipped: `null` results, bad samples,
 * duplicated series, Prometheus's own warnings of a partial response), or why there is none (Prometheus down, slow,
 * or an error).
 */
export type QueryResult<T> =
  | { ok: true; data: T; warnings?: string[] }
  | { ok: false; reason: string };

/** The Prometheus HTTP API envelope (`/api/v1/query*`); `data.result` is checked series by series afterwards. */
const envelopeSchema = z.object({
  status: z.enum(['success', 'error']),
  data: z
    .object({ resultType: z.string(), result: z.unknown().optional() })
    .nullish(),
  errorType: z.string().nullish(),
  error: z.string().nullish(),
  warnings: z.array(z.string()).nullish(),
});

/**
 * A series' labels: its string-valued entries (none for a missing `metric`), or undefined when `metric` is not an
 * object. Series and points are checked by hand, not with a schema: a 30-day card reads tens of thousands of points,
 * and a schema parse per point and per series was most of the route's own work.
 */
function labelsOf(metric: unknown): Record<string, string> | undefined {
  if (metric === undefined || metric === null) return {};
  if (typeof metric !== 'object' || Array.isArray(metric)) return undefined;
  const labels: Record<string, string> = {};
  for (const [name, value] of Object.entries(metric)) {
    if (typeof value === 'string') labels[name] = value;
  }
  return labels;
}

/** A `[unix seconds, value]` pair as the API sends it (the value is checked by {@link sampleValue}). */
function isPoint(raw: unknown): raw is [number, unknown] {
  return Array.isArray(raw) && raw.length === 2 && typeof raw[0] === 'number';
}

/** A series of a vector or a matrix: an object with its labels and the field holding its sample or points. */
function seriesOf(
  item: unknown,
  field: 'value' | 'values',
): { labels: Record<string, string>; data: unknown } | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return undefined;
  }
  const record = item as Record<string, unknown>;
  const labels = labelsOf(record.metric);
  return labels && { labels, data: record[field] };
}

/**
 * Prometheus's string form of a sample value: a finite number, or undefined for `"NaN"`, `"+Inf"`, `"-Inf"` and
 * anything that is not a number (such samples are skipped: no figure is computed from them).
 */
export function sampleValue(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) return undefined;
  // `Number` reads an empty or blank string as 0.
  return number === 0 && value.trim() === '' ? undefined : number;
}

/** A canonical key of a label set (label order does not matter). */
function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map(k => [k, labels[k]]),
  );
}

/** Counts of what was dropped from one answer, turned into warnings. */
class Skipped {
  malformed = 0;
  nonFinite = 0;
  duplicated = 0;
  readonly notes: string[] = [];

  warnings(prometheusWarnings?: string[] | null): string[] | undefined {
    const out = [...this.notes];
    if (this.malformed > 0)
      out.push(`skipped ${this.malformed} malformed series or samples`);
    if (this.nonFinite > 0)
      out.push(
        `skipped ${this.nonFinite} NaN, infinite or non-numeric samples`,
      );
    if (this.duplicated > 0)
      out.push(`merged ${this.duplicated} duplicated series (same labels)`);
    for (const warning of prometheusWarnings ?? [])
      out.push(`Prometheus warning: ${warning}`);
    return out.length > 0 ? out : undefined;
  }
}

function resultArray(result: unknown, skipped: Skipped): unknown[] {
  if (Array.isArray(result)) return result;
  let what = 'a non-array';
  if (result === null) what = 'a null';
  else if (result === undefined) what = 'no';
  skipped.notes.push(`Prometheus returned ${what} result: read as no series`);
  return [];
}

/** Instant samples, bad ones skipped, duplicated label sets merged by keeping the highest value (order-independent). */
function parseVector(result: unknown, skipped: Skipped): InstantSample[] {
  const byKey = new Map<string, InstantSample>();
  for (const item of resultArray(result, skipped)) {
    const series = seriesOf(item, 'value');
    if (!series || !isPoint(series.data)) {
      skipped.malformed += 1;
      continue;
    }
    const value = sampleValue(series.data[1]);
    if (value === undefined) {
      skipped.nonFinite += 1;
      continue;
    }
    const key = labelKey(series.labels);
    const seen = byKey.get(key);
    if (seen) {
      skipped.duplicated += 1;
      seen.value = Math.max(seen.value, value);
      continue;
    }
    byKey.set(key, { labels: series.labels, value });
  }
  return [...byKey.values()];
}

/** Range series, bad points skipped, duplicated label sets merged point by point (highest value per timestamp). */
function parseMatrix(result: unknown, skipped: Skipped): RangeSeries[] {
  const byKey = new Map<string, RangeSeries>();
  for (const item of resultArray(result, skipped)) {
    const parsed = seriesOf(item, 'values');
    if (!parsed || !Array.isArray(parsed.data)) {
      skipped.malformed += 1;
      continue;
    }
    const key = labelKey(parsed.labels);
    const points = seriesPoints(parsed.data, skipped);
    const seen = byKey.get(key);
    if (seen) {
      skipped.duplicated += 1;
      seen.points = mergedPoints(seen.points, points);
    } else byKey.set(key, { labels: parsed.labels, points });
  }
  return [...byKey.values()].filter(s => s.points.length > 0);
}

/**
 * A series' points by time, bad ones skipped: as sent when their times increase (Prometheus sends them so), else
 * merged (the highest value at each time) and sorted. The answer's pairs are reused (their values set to numbers).
 */
function seriesPoints(
  data: unknown[],
  skipped: Skipped,
): Array<[number, number]> {
  const points: Array<[number, number]> = [];
  let increasing = true;
  for (const point of data) {
    if (!isPoint(point)) {
      skipped.malformed += 1;
      continue;
    }
    const value = sampleValue(point[1]);
    if (value === undefined) {
      skipped.nonFinite += 1;
      continue;
    }
    const [t] = point;
    if (points.length > 0 && points[points.length - 1][0] >= t) {
      increasing = false;
    }
    // The answer's own pair, its value now a number: an overview reads millions of points, each a pair less to
    // allocate and collect. Each answer is parsed once, here.
    point[1] = value;
    points.push(point as [number, number]);
  }
  return increasing ? points : mergedPoints(points);
}

/** Points merged by time (the highest value at each), sorted. */
function mergedPoints(
  ...lists: Array<Array<[number, number]>>
): Array<[number, number]> {
  const byTime = new Map<number, number>();
  for (const list of lists) {
    for (const [t, value] of list) {
      byTime.set(t, Math.max(byTime.get(t) ?? -Infinity, value));
    }
  }
  return [...byTime.entries()].sort(([a], [b]) => a - b);
}

type ApiData = {
  resultType: string;
  result?: unknown;
  warnings?: string[] | null;
};

/**
 * A thin client of the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`), POSTing form-encoded queries
 * (selectors for many services exceed URL limits). It never throws for Prometheus failures: every outcome is a
 * {@link QueryResult}, so callers can still answer with allocation cost. With a deadline, a query still waiting for
 * a slot or an answer when it passes ends at once with a reason; with a circuit breaker, queries are refused at once
 * while it is open.
 */
export class PrometheusClient {
  private count = 0;
  private readonly slots?: QueryParty;
  private readonly deadlineSignal?: AbortSignal;

  constructor(
    private readonly settings: Pick<
      PrometheusSettings,
      'baseUrl' | 'authorization' | 'timeoutMs'
    >,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly limits?: QueryLimits,
  ) {
    if (limits?.overall) {
      this.slots = limits.overall.party(
        limits.perRequest ?? limits.overall.max,
      );
    } else if (limits?.perRequest) {
      this.slots = new QuerySlots(limits.perRequest).party(limits.perRequest);
    }
    this.deadlineSignal = limits?.deadline
      ? AbortSignal.timeout(Math.max(0, limits.deadline.at - Date.now()))
      : undefined;
  }

  /** Queries sent since this client was made (for tests and the overview's report). */
  get queryCount(): number {
    return this.count;
  }

  /** Evaluates `promql` at `time` (unix seconds). */
  async query(
    promql: string,
    time: number,
  ): Promise<QueryResult<InstantSample[]>> {
    const response = await this.post('/api/v1/query', {
      query: promql,
      time: String(time),
    });
    if (!response.ok) {
      return response;
    }
    const { resultType, result, warnings } = response.data;
    const skipped = new Skipped();
    if (resultType === 'scalar') {
      const point = isPoint(result);
      const value = point ? sampleValue(result[1]) : undefined;
      if (!point) skipped.malformed += 1;
      else if (value === undefined) skipped.nonFinite += 1;
      return {
        ok: true,
        data: value === undefined ? [] : [{ labels: {}, value }],
        ...withWarnings(skipped.warnings(warnings)),
      };
    }
    if (resultType !== 'vector') {
      return {
        ok: false,
        reason: `Prometheus returned a ${resultType} where a vector was expected`,
      };
    }
    const data = parseVector(result, skipped);
    return { ok: true, data, ...withWarnings(skipped.warnings(warnings)) };
  }

  /** Evaluates `promql` from `start` to `end` (unix seconds) every `step` seconds. */
  async queryRange(
    promql: string,
    start: number,
    end: number,
    step: number,
  ): Promise<QueryResult<RangeSeries[]>> {
    const response = await this.post('/api/v1/query_range', {
      query: promql,
      start: String(start),
      end: String(end),
      step: String(step),
    });
    if (!response.ok) {
      return response;
    }
    const { resultType, result, warnings } = response.data;
    if (resultType !== 'matrix') {
      return {
        ok: false,
        reason: `Prometheus returned a ${resultType} where a matrix was expected`,
      };
    }
    const skipped = new Skipped();
    const data = parseMatrix(result, skipped);
    return { ok: true, data, ...withWarnings(skipped.warnings(warnings)) };
  }

  private async post(
    path: string,
    form: Record<string, string>,
  ): Promise<QueryResult<ApiData>> {
    const slots = this.slots;
    const deadline = this.deadlineSignal;
    const send = () => this.admitAndSend(path, form);
    // Range queries take longest (evaluated at every step, answering every point): they start first.
    const ahead = path === '/api/v1/query_range';
    try {
      return await (slots ? slots.run(send, deadline, ahead) : send());
    } catch (error) {
      if (deadline?.aborted) return this.outOfTime();
      throw error;
    }
  }

  private outOfTime(): QueryResult<ApiData> {
    return {
      ok: false,
      reason: `Prometheus did not answer within this request's ${this.limits?.deadline?.budgetMs} ms`,
    };
  }

  /** Sends the query if the circuit breaker lets it, and tells the breaker how it ended. */
  private async admitAndSend(
    path: string,
    form: Record<string, string>,
  ): Promise<QueryResult<ApiData>> {
    const breaker = this.limits?.breaker;
    const admission = breaker?.admit() ?? { allowed: true, probe: false };
    if (!admission.allowed) {
      return { ok: false, reason: admission.reason };
    }
    const { outcome, result } = await this.send(path, form);
    if (outcome === 'answered') breaker?.succeeded(admission.probe);
    else if (outcome === 'no-answer') breaker?.failed(admission.probe);
    else breaker?.abandoned(admission.probe);
    return result;
  }

  /** An abort: our deadline's (`cut`), or the query's own timeout (`no-answer`). */
  private aborted(
    error: unknown,
  ): { outcome: Outcome; result: QueryResult<ApiData> } | undefined {
    const name = (error as Error)?.name;
    if (name !== 'TimeoutError' && name !== 'AbortError') return undefined;
    if (this.deadlineSignal?.aborted) {
      return { outcome: 'cut', result: this.outOfTime() };
    }
    return {
      outcome: 'no-answer',
      result: {
        ok: false,
        reason: `Prometheus did not answer within ${this.settings.timeoutMs} ms`,
      },
    };
  }

  private async send(
    path: string,
    form: Record<string, string>,
  ): Promise<{ outcome: Outcome; result: QueryResult<ApiData> }> {
    this.count += 1;
    const { baseUrl, authorization, timeoutMs } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.deadlineSignal
      ? AbortSignal.any([timeout, this.deadlineSignal])
      : timeout;
    let response: Response;
    try {
      response = await this.fetchImpl(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: new URLSearchParams({
          ...form,
          timeout: `${timeoutMs}ms`,
        }).toString(),
        signal,
      });
    } catch (error) {
      return (
        this.aborted(error) ?? {
          outcome: 'no-answer',
          result: {
            ok: false,
            reason: `Prometheus is unreachable at ${baseUrl}: ${
              (error as Error)?.message ?? String(error)
            }`,
          },
        }
      );
    }
    let json: unknown;
    try {
      json = await response.json();
    } catch (error) {
      const aborted = this.aborted(error);
      if (aborted) return aborted;
      json = undefined;
    }
    const parsed = envelopeSchema.safeParse(json);
    const body = parsed.success ? parsed.data : undefined;
    if (!response.ok || body?.status !== 'success' || !body.data) {
      let detail = `HTTP ${response.status}${
        response.statusText ? ` ${response.statusText}` : ''
      }`;
      if (body?.error) detail = `${body.errorType ?? 'error'}: ${body.error}`;
      else if (response.ok)
        detail = 'the answer is not a Prometheus API response';
      return {
        outcome: 'answered',
        result: { ok: false, reason: `Prometheus query failed (${detail})` },
      };
    }
    return {
      outcome: 'answered',
      result: { ok: true, data: { ...body.data, warnings: body.warnings } },
    };
  }
}
