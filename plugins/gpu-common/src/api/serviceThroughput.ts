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
 * A service's cost per token and per request over the window. `measured`: its allocation cost over the prompt and
 * generated tokens and completed requests its vLLM counters show (`splitTokenCost`); `estimated` (no tokens
 * measured): its hourly cost at its capacity fully busy, with requests of the assumed 700 prompt + 300 output tokens
 * (`tokenPrices`). Either way an input token costs 1/10 of an output token.
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
}
