import {
  GpuDomainError,
  Placement,
  Quote,
  QuoteOption,
} from '@internal/backstage-plugin-gpu-common';

/**
 * The option a create or change request goes ahead with: the quote's recommendation among the options the request
 * narrowed to (by tier and pool). Fails with the reasons when nothing fits.
 */
export function chooseOption(quote: Quote): QuoteOption {
  if (quote.recommended) {
    return quote.recommended;
  }
  const why = quote.unavailable.map(
    u => `${u.slice.tier} on ${u.slice.pool}: ${u.reason}`,
  );
  throw new GpuDomainError(
    'NO_FIT',
    `No tier and pool can run ${quote.service}${
      why.length ? `: ${why.slice(0, 5).join('; ')}` : ''
    }`,
  );
}

/** Where the chosen option puts each replica. */
export function placementOf(option: QuoteOption): Placement {
  return {
    tier: option.slice.tier,
    pool: option.slice.pool,
    ...(option.slice.migProfile ? { migProfile: option.slice.migProfile } : {}),
    gpusPerReplica: option.slice.gpusPerReplica,
  };
}
