import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { ServiceTokenCosts } from '../api/serviceThroughput';
import { parseUsd, UsdMicros } from './money';
import { roundHalfEven } from './roundHalfEven';
import { ASSUMED_REQUEST_TOKENS } from './throughputAssumptions';

/**
 * A managed inference API's price, from `gpu.managedApi`, parsed once.
 *
 * @public
 */
export interface ManagedApiPrice {
  /** What the platform calls it, e.g. `Hosted Llama 3.1 8B`. */
  name: string;
  inputPerMillionMicros: UsdMicros;
  outputPerMillionMicros: UsdMicros;
}

/**
 * `gpu.managedApi`: the managed API self-hosting is compared with (`name`, `inputPricePerMillionTokens`,
 * `outputPricePerMillionTokens`, decimal USD). Undefined when not configured.
 *
 * @throws InputError when a price is not a decimal amount of 0 or more, or only some of the keys are given.
 * @public
 */
export function readManagedApiPrice(
  config: Config,
): ManagedApiPrice | undefined {
  const api = config.getOptionalConfig('gpu.managedApi');
  if (!api) return undefined;
  const price = (key: string) => {
    const value = api.getOptional(key);
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new InputError(
        `gpu.managedApi.${key}: give the price in USD per 1,000,000 tokens, e.g. '0.20'`,
      );
    }
    const micros = parseUsd(value);
    if (micros < 0) {
      throw new InputError(
        `gpu.managedApi.${key}: '${value}' is negative; give a price of 0 or more`,
      );
    }
    return micros;
  };
  return {
    name: api.getString('name'),
    inputPerMillionMicros: price('inputPricePerMillionTokens'),
    outputPerMillionMicros: price('outputPricePerMillionTokens'),
  };
}

/**
 * Self-hosting a service against a managed API at the service's own figures.
 *
 * @public
 */
export interface ManagedApiComparison {
  api: ManagedApiPrice;
  /** The service's own cost per 1M input and output tokens at its measured utilisation (its `tokenCosts`). */
  selfHostedInputPerMillionMicros?: UsdMicros;
  selfHostedOutputPerMillionMicros?: UsdMicros;
  /** Tokens of an average request: measured (the window's tokens over its completed requests) or the assumed shape. */
  request: {
    inputTokens: number;
    outputTokens: number;
    basis: 'measured' | 'assumed';
  };
  /** What the managed API charges for such a request. */
  managedCostPerRequestMicros: UsdMicros;
  /** What the service's GPUs cost a day, whatever it serves. */
  selfHostedDailyMicros: UsdMicros;
  /**
   * Requests a day at which both cost the same: below it the managed API is cheaper, above it self-hosting. Absent
   * when the managed API charges nothing for a request.
   */
  crossoverRequestsPerDay?: number;
}

/**
 * Compares a service with a managed API: its per-1M prices next to the API's, and the requests a day at which its
 * fixed daily GPU cost equals what the API would charge for them (`daily cost / API cost of one request`), with the
 * request shape the service measured (tokens over completed requests) or, without measurements, the quote's assumed
 * 700 prompt + 300 output tokens.
 *
 * @public
 */
export function compareWithManagedApi(
  api: ManagedApiPrice,
  service: { dailyCostMicros: UsdMicros; tokenCosts?: ServiceTokenCosts },
): ManagedApiComparison {
  const tokens = service.tokenCosts;
  const measured =
    tokens?.basis === 'measured' &&
    tokens.requests !== undefined &&
    tokens.requests > 0;
  const request = measured
    ? {
        inputTokens: (tokens.promptTokens ?? 0) / tokens.requests!,
        outputTokens: (tokens.generatedTokens ?? 0) / tokens.requests!,
        basis: 'measured' as const,
      }
    : {
        inputTokens: ASSUMED_REQUEST_TOKENS.input,
        outputTokens: ASSUMED_REQUEST_TOKENS.output,
        basis: 'assumed' as const,
      };
  const perRequest =
    (request.inputTokens * api.inputPerMillionMicros +
      request.outputTokens * api.outputPerMillionMicros) /
    1_000_000;
  return {
    api,
    ...(tokens?.costPerMillionInputTokensMicros !== undefined
      ? {
          selfHostedInputPerMillionMicros:
            tokens.costPerMillionInputTokensMicros,
        }
      : {}),
    ...(tokens?.costPerMillionOutputTokensMicros !== undefined
      ? {
          selfHostedOutputPerMillionMicros:
            tokens.costPerMillionOutputTokensMicros,
        }
      : {}),
    request,
    managedCostPerRequestMicros: roundHalfEven(perRequest),
    selfHostedDailyMicros: service.dailyCostMicros,
    ...(perRequest > 0
      ? {
          crossoverRequestsPerDay: Math.ceil(
            service.dailyCostMicros / perRequest,
          ),
        }
      : {}),
  };
}
