import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { roundHalfEven } from './roundHalfEven';

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
