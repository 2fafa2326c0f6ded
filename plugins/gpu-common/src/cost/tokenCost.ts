import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { roundHalfEven } from './roundHalfEven';
import {
  ASSUMED_REQUEST_TOKENS,
  PREFILL_TOKENS_PER_DECODE_TOKEN,
} from './throughputAssumptions';

/**
 * Cost per 1,000 output tokens: `cost / (tokens / 1000)`, in micro-dollars rounded half-to-even. Undefined when no
 * tokens were generated. Token counts and rates are measured or estimated doubles, so this unit price is computed in
 * double precision and rounded once (exact for integer inputs); it is for display and comparison, never summed.
 *
 * @public
 */
export function costPerThousandTokens(
  cost: UsdMicros,
  tokens: number,
): UsdMicros | undefined {
  if (!(tokens >= 0) || !Number.isFinite(tokens)) {
    throw new InputError(
      `Invalid token count ${tokens}: expected a finite number, 0 or more`,
    );
  }
  return tokens === 0 ? undefined : roundHalfEven((cost * 1000) / tokens);
}

/**
 * Cost per 1,000 output tokens at a steady rate: `hourly cost / (tokens per hour / 1000)`. Undefined at 0 tokens/s.
 *
 * @public
 */
export function costPerThousandTokensAtRate(
  hourly: UsdMicros,
  tokensPerSecond: number,
): UsdMicros | undefined {
  if (!(tokensPerSecond >= 0) || !Number.isFinite(tokensPerSecond)) {
    throw new InputError(
      `Invalid throughput ${tokensPerSecond} tokens/s: expected a finite number, 0 or more`,
    );
  }
  return tokensPerSecond === 0
    ? undefined
    : roundHalfEven((hourly * 1000) / (tokensPerSecond * 3600));
}

/**
 * How much of a service's capacity its demand uses, and what that does to the cost per 1,000 tokens.
 *
 * @public
 */
export interface CapacityUtilisation {
  /** Demand / capacity, capped at 1 (a saturated service serves at most its capacity). */
  utilisation: number;
  /**
   * Capacity / served tokens: how many times the ideal (fully busy) cost per 1,000 tokens the real one is. 1 when
   * saturated; undefined when there is no demand.
   */
  costFactor: number | undefined;
  /** Demand exceeds capacity: requests queue and the service needs more replicas. */
  saturated: boolean;
}

/**
 * The capacity-utilisation factor of the report summariser: a service that can generate 1,500 tokens/s but is asked for 600 is 40%
 * utilised, so each token costs 1,500 / 600 = 2.5x the ideal figure.
 *
 * @throws InputError when capacity is not above 0 or demand is negative.
 * @public
 */
export function capacityUtilisation(
  capacityTokensPerSecond: number,
  demandTokensPerSecond: number,
): CapacityUtilisation {
  if (
    !(capacityTokensPerSecond > 0) ||
    !Number.isFinite(capacityTokensPerSecond)
  ) {
    throw new InputError(
      `Invalid capacity ${capacityTokensPerSecond} tokens/s: expected a finite number above 0`,
    );
  }
  if (
    !(demandTokensPerSecond >= 0) ||
    !Number.isFinite(demandTokensPerSecond)
  ) {
    throw new InputError(
      `Invalid demand ${demandTokensPerSecond} tokens/s: expected a finite number, 0 or more`,
    );
  }
  const saturated = demandTokensPerSecond > capacityTokensPerSecond;
  const served = Math.min(demandTokensPerSecond, capacityTokensPerSecond);
  return {
    utilisation: served / capacityTokensPerSecond,
    costFactor: served === 0 ? undefined : capacityTokensPerSecond / served,
    saturated,
  };
}

/**
 * Unit prices of a service serving a steady rate of output tokens: per request, and per 1 million input (prompt) and
 * output (generation) tokens.
 *
 * @public
 */
export interface TokenPrices {
  /** Cost of one request of the assumed shape ({@link ASSUMED_REQUEST_TOKENS}): 300 output tokens' share of the hour. */
  costPerRequest: UsdMicros;
  /** Cost per 1,000,000 prompt tokens: 1/{@link PREFILL_TOKENS_PER_DECODE_TOKEN} of the output price. */
  costPerMillionInputTokens: UsdMicros;
  /** Cost per 1,000,000 generated tokens. */
  costPerMillionOutputTokens: UsdMicros;
}

/**
 * Splits the hourly cost of a service serving `outputTokensPerSecond` over requests and over input and output tokens.
 *
 * Split rule: the hour buys `outputTokensPerSecond x 3,600` output tokens, i.e. that many / 300 requests of the
 * assumed shape (700 prompt + 300 output tokens), so a request costs `hourly x 300 / (tokens/s x 3,600)`. Within a
 * request the cost is divided by GPU time: prefilling 700 prompt tokens takes the time of 700 / 10 = 70 decode steps,
 * so the 300 output tokens carry 300/370 of the request's cost and the 700 input tokens 70/370, which makes an input
 * token cost 1/10 of an output token and `700 x input price + 300 x output price = cost per request`. Each figure is
 * computed in double precision and rounded half-to-even once; for display and comparison, never summed. Undefined at
 * 0 tokens/s.
 *
 * @throws InputError when the rate is negative or not finite.
 * @public
 */
export function tokenPrices(
  hourly: UsdMicros,
  outputTokensPerSecond: number,
): TokenPrices | undefined {
  if (
    !(outputTokensPerSecond >= 0) ||
    !Number.isFinite(outputTokensPerSecond)
  ) {
    throw new InputError(
      `Invalid throughput ${outputTokensPerSecond} tokens/s: expected a finite number, 0 or more`,
    );
  }
  if (outputTokensPerSecond === 0) return undefined;
  const { input, output } = ASSUMED_REQUEST_TOKENS;
  const perOutputToken = hourly / (outputTokensPerSecond * 3600);
  const requestCost = perOutputToken * output;
  const decodeSteps = output + input / PREFILL_TOKENS_PER_DECODE_TOKEN;
  const outputPrice = (requestCost * (output / decodeSteps)) / output;
  return {
    costPerRequest: roundHalfEven(requestCost),
    costPerMillionInputTokens: roundHalfEven(
      (outputPrice * 1_000_000) / PREFILL_TOKENS_PER_DECODE_TOKEN,
    ),
    costPerMillionOutputTokens: roundHalfEven(outputPrice * 1_000_000),
  };
}
