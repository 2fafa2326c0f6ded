import { ResponseError, serializeError } from '@backstage/errors';
import {
  AutoscaledReplicasPolicy,
  demoPlatformConfig,
  parsePlatform,
  Quote,
  quoteService,
  ServiceRequest,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuApi } from '../../../api';

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
 * A GpuApi whose `quote` answers like the backend route: the real validation and domain quote, a domain error as
 * a `ResponseError`; `getPlatform` answers the demo platform. Records every quote with its abort signal. Autoscaled
 * requests are priced by `pricing.autoscaledReplicas` (default: the backend's, `maximum`).
 */
export function quotingApi(
  pricing: { autoscaledReplicas?: AutoscaledReplicasPolicy } = {},
) {
  const calls: { request: ServiceRequest; signal?: AbortSignal }[] = [];
  const api: Pick<GpuApi, 'quote' | 'getPlatform'> = {
    async getPlatform() {
      return { platform: demoPlatform, clusters: [] };
    },
    async quote(request, options) {
      calls.push({ request, signal: options?.signal });
      try {
        return demoQuote(request, pricing.autoscaledReplicas);
      } catch (error) {
        throw await asResponseError(error as Error);
      }
    },
  };
  return { api, calls };
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
