import { ResponseError, serializeError } from '@backstage/errors';
import {
  AutoscaledReplicasPolicy,
  compactQuote,
  demoPlatformConfig,
  parsePlatform,
  Platform,
  Quote,
  QuoteOption,
  quoteService,
  ServiceRequest,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuApi } from '../../../api';
import { TierChoice, tierChoices } from '../tierChoices';

/** The demo platform the tests quote against (the same config the app ships). */
export const demoPlatform = parsePlatform(demoPlatformConfig);

/**
 * What the gpu backend answers for a team with nothing reserved: the real validation and quote, autoscaled requests
 * priced by `autoscaledReplicas` (`gpu.admission.autoscaledReplicas`; the backend's default `maximum`).
 */
export function demoQuote(
  request: unknown,
  autoscaledReplicas?: AutoscaledReplicasPolicy,
): Quote {
  return quoteService(
    demoPlatform,
    validateServiceRequest(demoPlatform, request),
    { reservedGpuUnits: {}, committedMonthlyCost: 0 },
    undefined,
    { autoscaledReplicas },
  );
}

/**
 * A row of the picker as it is built from the quote summary of `quote` (on `platform`, the demo one by default),
 * with its full option (what the picker fetches for the row it shows in detail).
 */
export function demoChoice(
  quote: Quote,
  key: string,
  platform: Platform = demoPlatform,
): { choice: TierChoice; detail?: QuoteOption } {
  const choice = tierChoices(compactQuote(quote), platform).find(
    c => c.key === key,
  )!;
  const detail = quote.options.find(
    o => `${o.slice.tier}/${o.slice.pool}` === key,
  );
  return { choice, detail };
}

/** How GpuClient fails: a `ResponseError` from the backend's JSON error body (400 for a domain error). */
export async function asResponseError(error: Error): Promise<ResponseError> {
  return ResponseError.fromResponse(
    new Response(
      JSON.stringify({
        error: serializeError(error),
        request: { method: 'POST', url: '/api/gpu/quote' },
        response: { statusCode: 400 },
      }),
      {
        status: 400,
        statusText: 'Bad Request',
        headers: { 'Content-Type': 'application/json' },
      },
    ),
  );
}

/**
 * A GpuApi whose `quote` and `quoteSummary` answer like the backend route: the real validation and domain quote
 * (narrowed by the request's tier and pool), the summary `compactQuote` of it, a domain error as a `ResponseError`;
 * `getPlatform` answers the demo platform. Records every summary asked in `calls` and every full quote in
 * `detailCalls`, with its abort signal, and the JSON bytes of each answer. Autoscaled requests are priced by
 * `pricing.autoscaledReplicas` (default: the backend's, `maximum`).
 */
export function quotingApi(
  pricing: { autoscaledReplicas?: AutoscaledReplicasPolicy } = {},
) {
  type Call = { request: ServiceRequest; signal?: AbortSignal; bytes?: number };
  const calls: Call[] = [];
  const detailCalls: Call[] = [];
  const answer = async <T>(call: Call, build: () => T): Promise<T> => {
    try {
      const body = build();
      call.bytes = JSON.stringify(body).length;
      return body;
    } catch (error) {
      throw await asResponseError(error as Error);
    }
  };
  const api: Pick<GpuApi, 'quote' | 'quoteSummary' | 'getPlatform'> = {
    async getPlatform() {
      return { platform: demoPlatform, clusters: [] };
    },
    async quote(request, options) {
      const call = { request, signal: options?.signal };
      detailCalls.push(call);
      return answer(call, () => demoQuote(request, pricing.autoscaledReplicas));
    },
    async quoteSummary(request, options) {
      const call = { request, signal: options?.signal };
      calls.push(call);
      return answer(call, () =>
        compactQuote(demoQuote(request, pricing.autoscaledReplicas)),
      );
    },
  };
  return { api, calls, detailCalls };
}

/** The template's form for an 8B Llama on vLLM in dev, owned by ml-platform. */
export const llamaForm = {
  owner: 'group:default/ml-platform',
  name: 'summariser',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 8192,
  concurrency: 16,
  replicas: 1,
  environment: 'dev',
};
