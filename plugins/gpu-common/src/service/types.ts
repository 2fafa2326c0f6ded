import { Dtype, Runtime, SharingTier } from '../platform/types';

/**
 * What a team asks for: the input of quoting, placement and rendering.
 *
 * @public
 */
export interface ServiceRequest {
  /** DNS-1123 label, at most 40 characters (names of rendered objects derive from it). */
  name: string;
  /** Team (catalog group) that owns the service. */
  team: string;
  /** Namespace; defaults to the team's first namespace. */
  namespace?: string;
  /** Key into `Platform.models`. */
  model: string;
  runtime: Runtime;
  /** Defaults to the model's `defaultDtype`. */
  dtype?: Dtype;
  /** vLLM `--max-model-len` / Ollama context length. */
  maxModelLen: number;
  /** Concurrent sequences (vLLM `--max-num-seqs`, Ollama `OLLAMA_NUM_PARALLEL`). */
  concurrency: number;
  /**
   * Sequences of the full max-model-len the service must hold at once (its peak of concurrent long requests), at most
   * `concurrency`. When given, a slice whose KV cache budget holds fewer (`FitResult.fullLengthSequences`) does not
   * fit, with the reason, and the throughput estimate batches this many sequences instead of `concurrency`.
   */
  concurrentSequences?: number;
  replicas: number;
  /** Key into `Platform.environments`. */
  environment: string;
  /** Requested tier; a quote lists every tier when absent. */
  tier?: SharingTier;
  /** Requested pool; a quote lists every pool when absent. */
  pool?: string;
  /** Expected demand in generated tokens per second, for the cost per 1,000 tokens. */
  expectedTokensPerSecond?: number;
  /**
   * Measured capacity of one replica on the request's pool, in generated tokens/s (e.g. from a load test or from
   * `vllm:generation_tokens_total` of a running replica). Needs `pool`; when given the quote uses it instead of
   * the bandwidth estimate and labels the throughput `measured`.
   */
  measuredTokensPerSecond?: number;
  autoscaling?: {
    minReplicas: number;
    maxReplicas: number;
    /** Waiting requests per replica that trigger a scale-up. */
    targetQueueDepth: number;
    /** KEDA ScaledObject (scale-to-zero possible) or a plain HPA. */
    engine: 'keda' | 'hpa';
  };
  /**
   * The service's latency objective (vLLM only): the p95 of its end-to-end request latency, from vLLM's
   * `vllm:e2e_request_latency_seconds` histogram, must stay at or below it. The card compares the measured p95 with
   * it, and an alert rule rendered with the service fires while it is broken.
   */
  latencyBudget?: LatencyBudget;
}

/**
 * A latency objective of a service.
 *
 * @public
 */
export interface LatencyBudget {
  /** Seconds the p95 end-to-end request latency may reach, from {@link MIN_LATENCY_BUDGET_SECONDS} to {@link MAX_LATENCY_BUDGET_SECONDS}. */
  p95Seconds: number;
}

/**
 * Smallest latency budget a request may state, seconds.
 *
 * @public
 */
export const MIN_LATENCY_BUDGET_SECONDS = 0.1;

/**
 * Largest latency budget a request may state, seconds (one hour).
 *
 * @public
 */
export const MAX_LATENCY_BUDGET_SECONDS = 3600;

/**
 * Where one replica of a service lands: a tier on a pool and the slice it gets.
 *
 * @public
 */
export interface Placement {
  tier: SharingTier;
  pool: string;
  /** MIG profile for the `mig` tier. */
  migProfile?: string;
  /** Whole GPUs per replica for `dedicated` (tensor parallel size); 1 otherwise. */
  gpusPerReplica: number;
}
