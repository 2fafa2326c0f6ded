import { useApi } from '@backstage/frontend-plugin-api';
import {
  Quote,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useEffect, useMemo, useState } from 'react';
import { gpuApiRef } from '../../api';

/** Wait after the last keystroke before quoting. */
export const QUOTE_DEBOUNCE_MS = 300;

/** The latest quote for a request, kept while a newer one loads. */
export interface QuoteState {
  quote?: Quote;
  /** The request `quote` answers. */
  quotedRequest?: ServiceRequest;
  loading: boolean;
  error?: Error;
}

/**
 * Quotes `request` once it has stopped changing for `delayMs`; a change cancels the pending timer and aborts the
 * request in flight, so an older answer never replaces a newer one.
 */
export function useDebouncedQuote(
  request: ServiceRequest | undefined,
  delayMs: number = QUOTE_DEBOUNCE_MS,
): QuoteState {
  const gpuApi = useApi(gpuApiRef);
  const key = request ? JSON.stringify(request) : undefined;
  // The request's identity changes on every render; its JSON does not.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableRequest = useMemo(() => request, [key]);
  const [state, setState] = useState<QuoteState>({ loading: false });

  useEffect(() => {
    if (!stableRequest) {
      setState({ loading: false });
      return undefined;
    }
    setState(previous => ({ ...previous, loading: true, error: undefined }));
    const controller = new AbortController();
    const timer = setTimeout(() => {
      gpuApi.quote(stableRequest, { signal: controller.signal }).then(
        quote => {
          if (!controller.signal.aborted) {
            setState({ quote, quotedRequest: stableRequest, loading: false });
          }
        },
        error => {
          if (!controller.signal.aborted) {
            setState({ loading: false, error });
          }
        },
      );
    }, delayMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [gpuApi, stableRequest, delayMs]);

  return state;
}
