import { PrometheusSettings } from './PrometheusConfig';

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

/** What a query gives: data, or why there is none (Prometheus down, slow, or an error). */
export type QueryResult<T> =
  | { ok: true; data: T }
  | { ok: false; reason: string };

interface ApiResponse {
  status: 'success' | 'error';
  data?: { resultType: string; result: unknown[] };
  errorType?: string;
  error?: string;
}

/** Prometheus's string form of a sample value (`"NaN"`, `"+Inf"` included). */
const SPECIAL: Record<string, number> = { '+Inf': Infinity, '-Inf': -Infinity };

function sampleValue(text: string): number {
  return SPECIAL[text] ?? Number(text);
}

/**
 * A thin client of the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`), POSTing form-encoded queries
 * (selectors for many services exceed URL limits). It never throws for Prometheus failures: every outcome is a
 * {@link QueryResult}, so callers can still answer with allocation cost.
 */
export class PrometheusClient {
  private count = 0;

  constructor(
    private readonly settings: Pick<
      PrometheusSettings,
      'baseUrl' | 'authorization' | 'timeoutMs'
    >,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

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
    const { resultType, result } = response.data;
    if (resultType === 'scalar') {
      const [, value] = result as unknown as [number, string];
      return { ok: true, data: [{ labels: {}, value: sampleValue(value) }] };
    }
    if (resultType !== 'vector') {
      return {
        ok: false,
        reason: `Prometheus returned a ${resultType} where a vector was expected`,
      };
    }
    return {
      ok: true,
      data: (
        result as Array<{
          metric: Record<string, string>;
          value: [number, string];
        }>
      ).map(s => ({ labels: s.metric, value: sampleValue(s.value[1]) })),
    };
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
    if (response.data.resultType !== 'matrix') {
      return {
        ok: false,
        reason: `Prometheus returned a ${response.data.resultType} where a matrix was expected`,
      };
    }
    return {
      ok: true,
      data: (
        response.data.result as Array<{
          metric: Record<string, string>;
          values: Array<[number, string]>;
        }>
      ).map(s => ({
        labels: s.metric,
        points: s.values.map(
          ([t, v]) => [t, sampleValue(v)] as [number, number],
        ),
      })),
    };
  }

  private async post(
    path: string,
    form: Record<string, string>,
  ): Promise<QueryResult<{ resultType: string; result: unknown[] }>> {
    this.count += 1;
    const { baseUrl, authorization, timeoutMs } = this.settings;
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
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        return {
          ok: false,
          reason: `Prometheus did not answer within ${timeoutMs} ms`,
        };
      }
      return {
        ok: false,
        reason: `Prometheus is unreachable at ${baseUrl}: ${
          (error as Error)?.message ?? String(error)
        }`,
      };
    }
    let body: ApiResponse | undefined;
    try {
      body = (await response.json()) as ApiResponse;
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        return {
          ok: false,
          reason: `Prometheus did not answer within ${timeoutMs} ms`,
        };
      }
      body = undefined;
    }
    if (!response.ok || body?.status !== 'success' || !body.data) {
      const detail = body?.error
        ? `${body.errorType ?? 'error'}: ${body.error}`
        : `HTTP ${response.status}${
            response.statusText ? ` ${response.statusText}` : ''
          }`;
      return { ok: false, reason: `Prometheus query failed (${detail})` };
    }
    return { ok: true, data: body.data };
  }
}
