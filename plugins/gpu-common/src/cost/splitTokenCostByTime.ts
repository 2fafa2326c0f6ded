import { InputError } from '@backstage/errors';
import { UsdMicros } from './money';
import { roundHalfEven } from './roundHalfEven';
import { ServedTokens, SplitTokenCost } from './splitTokenCost';
import { splitMicros } from './splitMicros';
import { costPerThousandTokens } from './tokenCost';

/**
 * GPU time a service's requests spent in each phase over a window: the increases of vLLM's
 * `vllm:request_prefill_time_seconds` and `vllm:request_decode_time_seconds` histogram sums.
 *
 * @public
 */
export interface PhaseSeconds {
  prefillSeconds: number;
  decodeSeconds: number;
}

/**
 * Splits a cost between input and output tokens by the GPU time the requests spent prefilling their prompts and
 * decoding their outputs (OpenCost's `/inferenceCost` convention): the input tokens bear
 * `cost x prefill / (prefill + decode)`, the output tokens the rest, in whole micro-dollars that add up to the cost
 * (`splitMicros` over the phase times in milliseconds). Per 1M input tokens is the input share over the prompt
 * tokens, per 1M output tokens the output share over the generated tokens, each rounded half-to-even once. Per 1,000
 * output tokens keeps the whole cost on the generated tokens and per request is `cost / requests`, as in
 * {@link splitTokenCost}. Undefined when the phases took no measurable time (a split needs them).
 *
 * @throws InputError when a time or count is negative or not finite.
 * @public
 */
export function splitTokenCostByTime(
  cost: UsdMicros,
  served: ServedTokens,
  phases: PhaseSeconds,
): SplitTokenCost | undefined {
  for (const [name, value] of [
    ['prefill seconds', phases.prefillSeconds],
    ['decode seconds', phases.decodeSeconds],
    ['prompt token count', served.promptTokens],
    ['generated token count', served.generatedTokens],
    ['request count', served.requests ?? 0],
  ] as const) {
    if (!(value >= 0 && Number.isFinite(value))) {
      throw new InputError(
        `Invalid ${name} ${value}: expected a finite number, 0 or more`,
      );
    }
  }
  const weights = [
    Math.round(phases.prefillSeconds * 1000),
    Math.round(phases.decodeSeconds * 1000),
  ];
  if (weights[0] + weights[1] === 0) return undefined;
  const [inputMicros, outputMicros] = splitMicros(cost, weights);
  const result: SplitTokenCost = {};
  if (served.promptTokens > 0) {
    result.costPerMillionInputTokens = roundHalfEven(
      (inputMicros * 1_000_000) / served.promptTokens,
    );
  }
  if (served.generatedTokens > 0) {
    result.costPerMillionOutputTokens = roundHalfEven(
      (outputMicros * 1_000_000) / served.generatedTokens,
    );
    result.costPerThousandOutputTokens = costPerThousandTokens(
      cost,
      served.generatedTokens,
    );
  }
  if (served.requests !== undefined && served.requests > 0) {
    result.costPerRequest = roundHalfEven(cost / served.requests);
  }
  return result;
}
