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

/** Isolation levels, short. */
export const ISOLATION_LABELS: Record<Isolation, string> = {
  full: 'Full',
  hardware: 'Hardware',
  capped: 'Capped',
  none: 'None',
};

/** What each isolation level means for a neighbour's bad day. */
export const ISOLATION_DETAILS: Record<Isolation, string> = {
  full: 'Whole GPUs: no neighbours',
  hardware: 'MIG: memory and compute partitioned by the GPU',
  capped: 'MPS: memory and threads limited to a share, faults shared',
  none: 'Time-slicing: memory and time shared, no limits',
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

/** `3 of 4 left`, or `over by 1 (0 of 0 free)`. */
export function quotaText(option: QuoteOption): string {
  const { remaining, nominal, used } = option.quota;
  if (remaining < 0) {
    return `over by ${gpuEquivalents(-remaining)} (${gpuEquivalents(
      Math.max(0, nominal - used),
    )} of ${gpuEquivalents(nominal)} free)`;
  }
  return `${gpuEquivalents(remaining)} of ${gpuEquivalents(nominal)} left`;
}
