import { useApi } from '@backstage/frontend-plugin-api';
import {
  CompactQuote,
  Quote,
  QuoteOption,
  ServiceRequest,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useEffect, useMemo, useState } from 'react';
import { GpuApi, gpuApiRef } from '../../api';

/** Wait after the last keystroke before quoting. */
export const QUOTE_DEBOUNCE_MS = 300;

/** The latest quote for a request, kept while a newer one loads. */
export interface QuoteState<T = Quote> {
  quote?: T;
  /** The request `quote` answers. */
  quotedRequest?: ServiceRequest;
  loading: boolean;
  error?: Error;
}

type Fetch<T> = (
  api: GpuApi,
  request: ServiceRequest,
  signal: AbortSignal,
) => Promise<T>;

const fullQuote: Fetch<Quote> = (api, request, signal) =>
  api.quote(request, { signal });
const summaryQuote: Fetch<CompactQuote> = (api, request, signal) =>
  api.quoteSummary(request, { signal });

/**
 * Quotes `request` once it has stopped changing for `delayMs`; a change cancels the pending timer and aborts the
 * request in flight, so an older answer never replaces a newer one.
 */
function useDebounced<T>(
  request: ServiceRequest | undefined,
  fetch: Fetch<T>,
  delayMs: number,
): QuoteState<T> {
  const gpuApi = useApi(gpuApiRef);
  const key = request ? JSON.stringify(request) : undefined;
  // The request's identity changes on every render; its JSON does not.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableRequest = useMemo(() => request, [key]);
  const [state, setState] = useState<QuoteState<T>>({ loading: false });

  useEffect(() => {
    if (!stableRequest) {
      setState({ loading: false });
      return undefined;
    }
    setState(previous => ({ ...previous, loading: true, error: undefined }));
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetch(gpuApi, stableRequest, controller.signal).then(
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
  }, [gpuApi, stableRequest, fetch, delayMs]);

  return state;
}

/** The whole quote (`POST /quote`) of `request`, debounced (see `useDebouncedQuoteSummary`). */
export function useDebouncedQuote(
  request: ServiceRequest | undefined,
  delayMs: number = QUOTE_DEBOUNCE_MS,
): QuoteState<Quote> {
  return useDebounced(request, fullQuote, delayMs);
}

/**
 * The quote summary (`POST /quote?detail=summary`, a few KB: a row per tier and pool) of `request` once it has
 * stopped changing for `delayMs`; a change cancels the pending timer and aborts the request in flight.
 */
export function useDebouncedQuoteSummary(
  request: ServiceRequest | undefined,
  delayMs: number = QUOTE_DEBOUNCE_MS,
): QuoteState<CompactQuote> {
  return useDebounced(request, summaryQuote, delayMs);
}

/** The full option of one tier and pool, for the request it was quoted for. */
export interface QuoteDetail {
  key: string;
  request: ServiceRequest;
  option: QuoteOption;
}

/**
 * The full quote of one row of the summary (`POST /quote` with the request's `tier` and `pool`, which narrow it to
 * that tier and pool): its verdict's reasons, throughput and token prices, what autoscaling is priced at. Fetched
 * when the row or the quoted request changes; a change aborts the fetch in flight. Undefined while it loads, when it
 * fails (the row's figures stand without it) or when no row is given.
 */
export function useQuoteDetail(
  request: ServiceRequest | undefined,
  row: { key: string; tier: SharingTier; pool: string } | undefined,
): QuoteDetail | undefined {
  const gpuApi = useApi(gpuApiRef);
  const [detail, setDetail] = useState<QuoteDetail>();
  const tier = row?.tier;
  const pool = row?.pool;
  const key = row?.key;

  useEffect(() => {
    if (!request || !tier || !pool || !key) return undefined;
    const controller = new AbortController();
    const { signal } = controller;
    const optionOf = (quote: Quote) =>
      quote.options.find(o => o.slice.tier === tier && o.slice.pool === pool);
    gpuApi
      .quote({ ...request, tier, pool }, { signal })
      // A request naming a tier its environment forbids is refused: that row's reasons are in the whole quote.
      .catch(() =>
        signal.aborted ? undefined : gpuApi.quote(request, { signal }),
      )
      .then(
        quote => {
          const option = quote && optionOf(quote);
          if (!signal.aborted && option) {
            setDetail({ key, request, option });
          }
        },
        () => {},
      );
    return () => controller.abort();
  }, [gpuApi, request, tier, pool, key]);

  return detail && detail.key === key && detail.request === request
    ? detail
    : undefined;
}
