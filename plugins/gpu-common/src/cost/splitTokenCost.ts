import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { roundHalfEven } from './roundHalfEven';
import { PREFILL_TOKENS_PER_DECODE_TOKEN } from './throughputAssumptions';
import { costPerThousandTokens } from './tokenCost';

/**
 * Tokens and requests a service served over a window (vLLM `vllm:prompt_tokens_total`,
 * `vllm:generation_tokens_total` and `vllm:request_success_total` increases).
 *
 * @public
 */
export interface ServedTokens {
  promptTokens: number;
  generatedTokens: number;
  /** Requests completed; absent when not measured. */
  requests?: number;
}

/**
 * Unit prices of what a service served over a window, from what it cost.
 *
 * @public
 */
export interface SplitTokenCost {
  /** Cost per 1,000,000 prompt tokens: 1/{@link PREFILL_TOKENS_PER_DECODE_TOKEN} of the output price. */
  costPerMillionInputTokens?: UsdMicros;
  /** Cost per 1,000,000 generated tokens, the input tokens' share taken off. */
  costPerMillionOutputTokens?: UsdMicros;
  /** Cost per 1,000 generated tokens with the whole cost on them (`costPerThousandTokens`, as in the quote). */
  costPerThousandOutputTokens?: UsdMicros;
  /** Cost / completed requests. */
  costPerRequest?: UsdMicros;
}

function count(name: string, value: number | undefined): void {
  if (value !== undefined && !(value >= 0 && Number.isFinite(value))) {
    throw new InputError(
      `Invalid ${name} ${value}: expected a finite number, 0 or more`,
    );
  }
}

/**
 * Splits a cost over the tokens and requests it served, with the quote's convention (`tokenPrices`): an input token
 * weighs 1/10 of an output token (`PREFILL_TOKENS_PER_DECODE_TOKEN`: prefill handles 10 prompt tokens in the GPU
 * time of one decode step), so with P prompt and G generated tokens
 *
 * `output price = cost / (G + P / 10)`, `input price = output price / 10`, and `P x input + G x output = cost`.
 *
 * Per 1,000 output tokens keeps the whole cost on the generated tokens (`cost x 1,000 / G`), like the quote's and the
 * team tables' per-1K figure; per request is `cost / requests`. Each figure is computed in double precision and
 * rounded half-to-even once, for display and comparison; a figure whose count is 0 is absent.
 *
 * @throws InputError when a count is negative or not finite.
 * @public
 */
export function splitTokenCost(
  cost: UsdMicros,
  served: ServedTokens,
): SplitTokenCost {
  count('prompt token count', served.promptTokens);
  count('generated token count', served.generatedTokens);
  count('request count', served.requests);
  const weightedTokens =
    served.generatedTokens +
    served.promptTokens / PREFILL_TOKENS_PER_DECODE_TOKEN;
  const result: SplitTokenCost = {};
  if (weightedTokens > 0) {
    const perMillionOutput = (cost * 1_000_000) / weightedTokens;
    if (served.promptTokens > 0) {
      result.costPerMillionInputTokens = roundHalfEven(
        perMillionOutput / PREFILL_TOKENS_PER_DECODE_TOKEN,
      );
    }
    if (served.generatedTokens > 0) {
      result.costPerMillionOutputTokens = roundHalfEven(perMillionOutput);
      result.costPerThousandOutputTokens = costPerThousandTokens(
        cost,
        served.generatedTokens,
      );
    }
  }
  if (served.requests !== undefined && served.requests > 0) {
    result.costPerRequest = roundHalfEven(cost / served.requests);
  }
  return result;
}
