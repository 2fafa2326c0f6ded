import { DtypeOption, Quote } from '@gpu-platform/backstage-plugin-gpu-common';

/** The quoted dtype when the catalogue has no checkpoint of it for the runtime (the quote then has no options). */
export function unavailableQuotedDtype(quote: Quote): DtypeOption | undefined {
  const quoted = quote.dtypes.find(d => d.dtype === quote.dtype);
  return quoted && !quoted.available ? quoted : undefined;
}

/** One line on the dtypes the model can and cannot run in on the runtime, or undefined when all are available. */
export function dtypeSummary(quote: Quote): string | undefined {
  const missing = quote.dtypes.filter(d => !d.available).map(d => d.dtype);
  if (missing.length === 0) return undefined;
  const available = quote.dtypes.filter(d => d.available).map(d => d.dtype);
  return `No checkpoint of this model for the runtime in ${missing.join(
    ', ',
  )}; available: ${available.join(', ') || 'none'}.`;
}
