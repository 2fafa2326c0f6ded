import type { UsdMicros } from '../cost/money';
import type { MeasuredCapacitySource } from '../quote/measuredCapacity';

/**
 * What one service's replicas sustain when busy, in output tokens/s: `measured` from the vLLM counters of this
 * service or of another of the same model and slice shape (`measuredBy` says which, over which window), else
 * `estimated` from memory bandwidth (`estimateSliceThroughput`).
 *
 * @public
 */
export interface ServiceThroughput {
  basis: 'measured' | 'estimated';
  /** Sustained output tokens/s of one replica. */
  tokensPerSecondPerReplica: number;
  replicas: number;
  /** tokensPerSecondPerReplica x replicas. */
  capacityTokensPerSecond: number;
  /** Where a measured figure came from; absent for an estimate. */
  measuredBy?: MeasuredCapacitySource;
}

/**
 * How a service's token cost is divided between input and output tokens: `measured` by the GPU time its requests
 * spent in prefill and decode (vLLM's `vllm:request_prefill_time_seconds` and `vllm:request_decode_time_seconds`,
 * OpenCost's `/inferenceCost` convention; `splitTokenCostByTime`), else `assumed`: an input token weighs
 * `inputTokenWeight` of an output token (`PREFILL_TOKENS_PER_DECODE_TOKEN`).
 *
 * @public
 */
export type TokenCostSplit =
  | { basis: 'measured'; prefillSeconds: number; decodeSeconds: number }
  | { basis: 'assumed'; inputTokenWeight: number };

/**
 * A service's cost per token and per request over the window. `measured`: its allocation cost over the prompt and
 * generated tokens and completed requests its vLLM counters show (`splitTokenCost`); `estimated` (no tokens
 * measured): its hourly cost at its capacity fully busy, with requests of the assumed 700 prompt + 300 output tokens
 * (`tokenPrices`). `inputOutputSplit` says how input and output prices were divided: measured prefill and decode
 * time where the service's pods report them, else the assumption that an input token costs 1/10 of an output token.
 *
 * @public
 */
export interface ServiceTokenCosts {
  basis: 'measured' | 'estimated';
  /** Measured: tokens and requests over the window. */
  promptTokens?: number;
  generatedTokens?: number;
  requests?: number;
  /** Estimated: the output tokens/s the prices assume (`ServiceThroughput.capacityTokensPerSecond`). */
  capacityTokensPerSecond?: number;
  costPerMillionInputTokensMicros?: UsdMicros;
  costPerMillionOutputTokensMicros?: UsdMicros;
  costPerThousandOutputTokensMicros?: UsdMicros;
  costPerRequestMicros?: UsdMicros;
  /** How the input and output prices divide the cost; present with them. */
  inputOutputSplit?: TokenCostSplit;
}
