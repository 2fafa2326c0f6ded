import {
  defaultDtypeFor,
  findModel,
  FitResult,
  fitSlices,
  Platform,
  Slice,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceRecord } from '../database';

/**
 * Whether one replica of a service's model fits a slice, by the quote's fit (`fitSlices`: the model, its dtype or
 * quantisation, max model length, concurrency and concurrent sequences of the stored request) on every pool and tier.
 */
export interface ModelFit {
  /** The fit of `slice`; undefined when the quote's fit does not consider it (e.g. several GPUs for Ollama). */
  of(slice: Slice): FitResult | undefined;
  /** `llama-3.1-70b in bf16 with max-model-len 8192 and 8 concurrent sequences`. */
  sizing: string;
  /** Why no slice can be checked (the model or its checkpoint left the catalogue); then none fits. */
  error?: string;
}

const keyOf = (slice: Slice) =>
  [slice.pool, slice.tier, slice.migProfile ?? '', slice.gpusPerReplica].join(
    '\u0000',
  );

/** The fit of the service's request on every slice of the platform, for the recommendations to choose from. */
export function modelFit(platform: Platform, service: ServiceRecord): ModelFit {
  const request = service.request;
  const fits = new Map<string, FitResult>();
  let dtype = request.dtype;
  let error: string | undefined;
  try {
    dtype ??= defaultDtypeFor(
      findModel(platform, request.model),
      request.runtime,
    );
    // Every tier and pool, whatever the request pinned.
    const everywhere = { ...request, tier: undefined, pool: undefined };
    for (const fit of fitSlices(platform, everywhere)) {
      fits.set(keyOf(fit.slice), fit);
    }
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  return {
    of: slice => fits.get(keyOf(slice)),
    sizing: `${request.model}${
      dtype ? ` in ${dtype}` : ''
    } with max-model-len ${request.maxModelLen} and ${
      request.concurrentSequences ?? request.concurrency
    } concurrent sequences`,
    ...(error ? { error } : {}),
  };
}
