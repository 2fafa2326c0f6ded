import {
  formatGb,
  formatUsd,
  Isolation,
  QuoteOption,
  SharingTier,
} from '@internal/backstage-plugin-gpu-common';

/** Tier names as the form shows them. */
export const TIER_LABELS: Record<SharingTier, string> = {
  dedicated: 'Dedicated',
  mig: 'MIG',
  mps: 'MPS',
  'time-sliced': 'Time-sliced',
};

/** What each isolation level means for a neighbour's bad day. */
export const ISOLATION_LABELS: Record<Isolation, string> = {
  full: 'Full (whole GPUs)',
  hardware: 'Hardware (memory and compute partitioned)',
  capped: 'Capped (memory and threads limited)',
  none: 'None (shares memory and time)',
};

function gpuEquivalents(value: number): string {
  return `${Number(value.toFixed(2))}`;
}

/** `5.0 GB headroom`. */
export function headroomText(option: QuoteOption): string {
  return `${formatGb(option.headroomBytes)} headroom`;
}

/** `$587.50`. */
export function monthlyText(option: QuoteOption): string {
  return formatUsd(option.cost.monthly);
}

/** `$0.001060`, or a dash when the GPU's throughput is unknown. */
export function perThousandTokensText(option: QuoteOption): string {
  const cost = option.cost.costPerThousandTokens;
  return cost === undefined ? '—' : formatUsd(cost, { decimals: 6 });
}

/** `3 of 4 GPU-eq left`, or `over by 1 (0 of 0 left)`. */
export function quotaText(option: QuoteOption): string {
  const { remaining, nominal, used } = option.quota;
  if (remaining < 0) {
    return `over by ${gpuEquivalents(-remaining)} (${gpuEquivalents(
      Math.max(0, nominal - used),
    )} of ${gpuEquivalents(nominal)} free)`;
  }
  return `${gpuEquivalents(remaining)} of ${gpuEquivalents(
    nominal,
  )} GPU-eq left`;
}
