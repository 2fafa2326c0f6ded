import { DtypeOption, Quote } from '@gpu-platform/backstage-plugin-gpu-common';

/** The quoted dtype when the catalogue has no checkpoint of it for the runtime (the quote then has no options). */
export function unavailableQuotedDtype(quote: Quote): DtypeOption | undefined {
  const quoted = quote.dtypes.find(d => d.dtype === quote.dtype);
  return quoted && !quoted.available ? quoted : undefined;
}
