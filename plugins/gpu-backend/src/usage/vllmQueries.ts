import { PrometheusClient, QueryResult } from '../metrics/PrometheusClient';
import { VLLM } from '../metrics/metricNames';
import {
  anyOf,
  promString,
  seconds,
  windowIncrease,
  windowRange,
} from '../metrics/promql';

/** A vLLM deployment: its namespace and the `model_name` label its pods report (the service name). */
export interface VllmTarget {
  namespace: string;
  modelName: string;
}

/** `namespace/model_name`, the key of the maps below. */
export const vllmKey = (t: VllmTarget) => `${t.namespace}/${t.modelName}`;

/** Rates the sustained throughput is taken over: 5-minute rates of the generation counter. */
export const SUSTAINED_RATE_SECONDS = 300;

/** The quantile of a replica's busy 5-minute rates that counts as what it sustains. */
export const SUSTAINED_QUANTILE = 0.9;

function selector(metric: string, targets: readonly VllmTarget[]): string {
  return `${metric}{namespace=~${promString(
    anyOf(targets.map(t => t.namespace)),
  )},model_name=~${promString(anyOf(targets.map(t => t.modelName)))}}`;
}

/**
 * Requests each target completed in the window ending at the evaluation time: the increase of
 * `vllm:request_success_total` (every `finished_reason`) per pod, summed; reset-safe (`windowIncrease`: a pod
 * restart resets its counter and `rate()` counts across the reset).
 */
export function completedRequestsQuery(
  targets: readonly VllmTarget[],
  windowSeconds: number,
): string {
  return `sum by (namespace,model_name) (${windowIncrease(
    selector(VLLM.requestSuccess, targets),
    windowSeconds,
  )})`;
}

/**
 * Seconds each target's requests spent in one phase (`prefill` or `decode`) in the window ending at the evaluation
 * time: the increase of the phase histogram's `_sum` (`vllm:request_prefill_time_seconds_sum`,
 * `vllm:request_decode_time_seconds_sum`) per pod, summed; reset-safe like the counters. No series: the pods do not
 * report the phase (older vLLM), and the answer has no value for the target.
 */
export function phaseSecondsQuery(
  targets: readonly VllmTarget[],
  windowSeconds: number,
  phase: 'prefill' | 'decode',
): string {
  const histogram = phase === 'prefill' ? VLLM.prefillTime : VLLM.decodeTime;
  return `sum by (namespace,model_name) (${windowIncrease(
    selector(`${histogram}_sum`, targets),
    windowSeconds,
  )})`;
}

/**
 * Sustained output tokens/s of one replica of each target over the window: each pod's 5-minute rate of
 * `vllm:generation_tokens_total`, at 5-minute steps where it generated at all (idle steps are not busy periods and
 * are left out), its {@link SUSTAINED_QUANTILE} quantile over the window (bursts above it are not sustained), then
 * the highest of the target's pods (what one replica has shown it sustains). Reset-safe: `rate()` counts across
 * counter resets.
 */
export function sustainedThroughputQuery(
  targets: readonly VllmTarget[],
  windowSeconds: number,
): string {
  const rates = `sum by (namespace,model_name,pod) (rate(${selector(
    VLLM.generationTokens,
    targets,
  )}[${windowRange(SUSTAINED_RATE_SECONDS)}])) > 0`;
  return `max by (namespace,model_name) (quantile_over_time(${SUSTAINED_QUANTILE}, (${rates})[${windowRange(
    windowSeconds,
  )}:${seconds(SUSTAINED_RATE_SECONDS)}]))`;
}

/** Runs a per-target query at `end`; the values by `vllmKey`, or why not. */
export async function queryByTarget(
  client: PrometheusClient,
  promql: string,
  end: number,
): Promise<QueryResult<Map<string, number>>> {
  const result = await client.query(promql, end);
  if (!result.ok) return result;
  const values = new Map<string, number>();
  for (const sample of result.data) {
    const key = vllmKey({
      namespace: sample.labels.namespace ?? '',
      modelName: sample.labels.model_name ?? '',
    });
    values.set(key, (values.get(key) ?? 0) + sample.value);
  }
  return { ...result, data: values };
}
