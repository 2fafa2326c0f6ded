import {
  costPerThousandTokensAtRate,
  PhaseSeconds,
  PREFILL_TOKENS_PER_DECODE_TOKEN,
  PoolPrice,
  pooledCost,
  ServiceThroughput,
  ServiceTokenCosts,
  splitTokenCost,
  splitTokenCostByTime,
  TokenCostSplit,
  tokenPrices,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The quote's convention: an input token weighs 1/10 of an output token. */
const ASSUMED_SPLIT: TokenCostSplit = {
  basis: 'assumed',
  inputTokenWeight: 1 / PREFILL_TOKENS_PER_DECODE_TOKEN,
};

/**
 * A service's cost per 1M input and output tokens, per 1,000 output tokens and per request over a window:
 *
 * - `measured` when its vLLM counters show tokens in the window: the window's allocation cost divided between its
 *   prompt and generated tokens by the time its requests spent in prefill and decode where its pods report those
 *   histograms (`splitTokenCostByTime`, `inputOutputSplit.basis` `measured`), else with an input token weighing 1/10
 *   of an output token (`splitTokenCost`, the quote's convention, `assumed`); per request over the requests it
 *   completed;
 * - else `estimated`: an hour of its replicas at their capacity fully busy (`throughput`), each replica costing the
 *   share of a GPU it is charged for (`sharePerReplica`, `chargedSharePerReplica`: as its allocation cost counts
 *   it), with requests of the quote's assumed 700 prompt + 300 output tokens (`tokenPrices`).
 *
 * Undefined when neither tokens nor a capacity are known.
 */
export function serviceTokenCosts(options: {
  allocationMicros: UsdMicros;
  served?: { promptTokens?: number; generatedTokens?: number };
  requests?: number;
  /** Seconds its requests spent in prefill and decode over the window, when its pods report them. */
  phases?: PhaseSeconds;
  throughput?: ServiceThroughput;
  price?: PoolPrice;
  /** GPU share one replica is charged for (`chargedSharePerReplica`); absent when its pool left the config. */
  sharePerReplica?: number;
}): ServiceTokenCosts | undefined {
  const { served, throughput, price, sharePerReplica } = options;
  const promptTokens = served?.promptTokens ?? 0;
  const generatedTokens = served?.generatedTokens ?? 0;
  if (promptTokens > 0 || generatedTokens > 0) {
    const counts = {
      promptTokens,
      generatedTokens,
      ...(options.requests !== undefined ? { requests: options.requests } : {}),
    };
    const byTime = options.phases
      ? splitTokenCostByTime(options.allocationMicros, counts, options.phases)
      : undefined;
    const split = byTime ?? splitTokenCost(options.allocationMicros, counts);
    const inputOutputSplit: TokenCostSplit =
      byTime && options.phases
        ? { basis: 'measured', ...options.phases }
        : ASSUMED_SPLIT;
    return {
      basis: 'measured',
      ...counts,
      ...prefixed(split),
      inputOutputSplit,
    };
  }
  if (!throughput || !price || !sharePerReplica || sharePerReplica <= 0) {
    return undefined;
  }
  const hourly = pooledCost(price, sharePerReplica, 1, throughput.replicas);
  const prices = tokenPrices(hourly, throughput.capacityTokensPerSecond);
  return {
    basis: 'estimated',
    capacityTokensPerSecond: throughput.capacityTokensPerSecond,
    ...(prices
      ? {
          costPerMillionInputTokensMicros: prices.costPerMillionInputTokens,
          costPerMillionOutputTokensMicros: prices.costPerMillionOutputTokens,
          costPerThousandOutputTokensMicros: costPerThousandTokensAtRate(
            hourly,
            throughput.capacityTokensPerSecond,
          ),
          costPerRequestMicros: prices.costPerRequest,
          inputOutputSplit: ASSUMED_SPLIT,
        }
      : {}),
  };
}

function prefixed(split: ReturnType<typeof splitTokenCost>) {
  return {
    ...(split.costPerMillionInputTokens !== undefined
      ? { costPerMillionInputTokensMicros: split.costPerMillionInputTokens }
      : {}),
    ...(split.costPerMillionOutputTokens !== undefined
      ? { costPerMillionOutputTokensMicros: split.costPerMillionOutputTokens }
      : {}),
    ...(split.costPerThousandOutputTokens !== undefined
      ? {
          costPerThousandOutputTokensMicros: split.costPerThousandOutputTokens,
        }
      : {}),
    ...(split.costPerRequest !== undefined
      ? { costPerRequestMicros: split.costPerRequest }
      : {}),
  };
}
