import {
  CapacityType,
  describeSlice,
  formatGb,
  formatUsd,
  Isolation,
  OptionScaling,
  PolicyVerdict,
  QuoteOption,
  SharingTier,
  Slice,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * What a row of the table says, read from the quote summary's row made whole with its pool's slice from the
 * platform (`tierChoices`); a full `QuoteOption` has all of it too. Verdict reasons, throughput and token prices are
 * the full quote's, fetched for the one row shown in detail.
 */
export interface ChoiceFigures {
  slice: Slice;
  cluster?: string;
  capacityType: CapacityType;
  verdict: PolicyVerdict;
  replicas: number;
  scaling: OptionScaling;
  headroomBytes: number;
  fullLengthSequences: number;
  cost: Pick<
    QuoteOption['cost'],
    'monthly' | 'costPerThousandTokens' | 'spotSavingMonthly'
  >;
  /** Absent when the quote withholds the team's figures. */
  quota?: Pick<QuoteOption['quota'], 'nominal' | 'used' | 'remaining'>;
}

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
export function headroomText(option: ChoiceFigures): string {
  return `${formatGb(option.headroomBytes)} headroom`;
}

/** `5 full-length sequences at once`: what the slice's KV cache holds at the requested max-model-len. */
export function sequencesText(option: ChoiceFigures): string {
  const n = option.fullLengthSequences;
  return `${n} full-length sequence${n === 1 ? '' : 's'} at once`;
}

/** `$587.50`: every replica for a month. */
export function monthlyText(option: ChoiceFigures): string {
  return formatUsd(option.cost.monthly);
}

/** Which replicas of an autoscaled range are priced, short: the maximum, the minimum, or the one that wakes it. */
const PRICED_AT: Record<
  Exclude<OptionScaling['basis'], 'fixed'>,
  (scaling: OptionScaling) => string
> = {
  maximum: () => 'maximum',
  'minimum-plus-burst': scaling =>
    scaling.minReplicas === 0 ? 'to wake' : 'minimum',
};

function replicasText(n: number): string {
  return `${n} replica${n === 1 ? '' : 's'}`;
}

/**
 * `2 replicas x $587.50`, or `1 replica` when there is one; for an autoscaled request which replicas are priced
 * (`4 replicas (maximum) x $587.50`, `1 replica (minimum) + 3 burst`, `1 replica (to wake) + 2 burst` when it scales
 * to zero), from the quote's `scaling.basis`.
 */
export function perReplicaCostText(option: ChoiceFigures): string {
  const { replicas, scaling } = option;
  const priced =
    scaling.basis === 'fixed'
      ? replicasText(replicas)
      : `${replicasText(replicas)} (${PRICED_AT[scaling.basis](scaling)})`;
  const burst =
    scaling.burstReplicas > 0 ? ` + ${scaling.burstReplicas} burst` : '';
  if (replicas === 1) return `${priced}${burst}`;
  return `${priced} x ${formatUsd(
    Math.round(option.cost.monthly / replicas),
  )}${burst}`;
}

/**
 * What an autoscaled option costs, as the platform prices it (`scaling.basis`), or undefined for fixed replicas:
 * `Autoscales from 1 to 4 replicas: priced and reserved at the maximum, 4 replicas ($2,350.02 a month), so every
 * replica it scales to is held in the team's quota`, or at the minimum with what the burst above it may add and how
 * much of it the team's quota has room for now. A service that scales to zero is priced at the replica that wakes it.
 */
export function scalingCostText(option: QuoteOption): string | undefined {
  const { scaling, replicas } = option;
  if (scaling.basis === 'fixed') return undefined;
  const range =
    scaling.minReplicas === 0
      ? `Scales to zero when idle, up to ${replicasText(scaling.maxReplicas!)}`
      : `Autoscales from ${scaling.minReplicas} to ${replicasText(
          scaling.maxReplicas!,
        )}`;
  const monthly = `(${formatUsd(option.cost.monthly)} a month)`;
  if (scaling.basis === 'maximum') {
    return `${range}: priced and reserved at the maximum, ${replicasText(
      replicas,
    )} ${monthly}, so every replica it scales to is held in the team's quota.`;
  }
  const reserved =
    scaling.minReplicas === 0
      ? `at 1 replica, the one that wakes it ${monthly}`
      : `at the minimum, ${replicasText(replicas)} ${monthly}`;
  if (scaling.burstReplicas === 0) {
    return `${range}: priced and reserved ${reserved}.`;
  }
  const room = option.quota.burstReplicasWithinQuota;
  const roomText =
    room === undefined
      ? ''
      : ` (${room} ${room === 1 ? 'has' : 'have'} room now)`;
  return `${range}: priced and reserved ${reserved}; up to ${
    scaling.burstReplicas
  } more run when the queue grows, only while the team's quota has room${roomText}, adding up to ${formatUsd(
    option.cost.burstMonthly ?? 0,
  )} a month if they ran all month.`;
}

/** `1 x L4 per replica`, `1 x L4 per replica, 2 replicas`. */
export function sliceText(option: ChoiceFigures): string {
  const replicas = option.replicas === 1 ? '' : `, ${option.replicas} replicas`;
  return `${describeSlice(option.slice)} per replica${replicas}`;
}

/** How a monthly figure is counted: `a month is 730 h (the platform's billing month), all replicas`. */
export function monthConventionText(hoursPerMonth: number): string {
  return `A month is ${hoursPerMonth} h (the platform's billing month, not the calendar month); costs cover every replica.`;
}

/** Whether the cost per token rests on a measured or an estimated capacity. */
export function throughputBasisLabel(
  option: QuoteOption,
): 'measured' | 'estimate' {
  return option.throughput.capacityBasis === 'measured'
    ? 'measured'
    : 'estimate';
}

/** `$0.001060`, or a dash when the GPU's throughput is unknown. */
export function perThousandTokensText(option: ChoiceFigures): string {
  const cost = option.cost.costPerThousandTokens;
  return cost === undefined ? '—' : formatUsd(cost, { decimals: 6 });
}

/** What spot capacity means for a service on it, or undefined for on-demand pools. */
export function spotText(option: ChoiceFigures): string | undefined {
  if (option.capacityType !== 'spot') return undefined;
  const saving = option.cost.spotSavingMonthly
    ? ` Saves ${formatUsd(
        option.cost.spotSavingMonthly,
      )} a month against on-demand.`
    : '';
  return `Spot: the nodes can be reclaimed with two minutes' notice, so replicas can disappear at any time; production on spot needs approval.${saving}`;
}

/** `$0.0302 / 1M in · $0.3021 / 1M out · $0.000112 / request`, or undefined when the throughput is unknown. */
export function tokenPricesText(option: QuoteOption): string | undefined {
  const {
    costPerMillionInputTokens: input,
    costPerMillionOutputTokens: output,
    costPerRequest: request,
  } = option.cost;
  if (input === undefined || output === undefined || request === undefined) {
    return undefined;
  }
  return `${formatUsd(input, { decimals: 4 })} / 1M in · ${formatUsd(output, {
    decimals: 4,
  })} / 1M out · ${formatUsd(request, { decimals: 6 })} / request`;
}

function tokensPerSecond(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')} tokens/s`;
}

/**
 * Where the token prices come from: `Measured: 1,500 tokens/s capacity, 600 tokens/s demand (40% used)` (with
 * `(measured on writer)` when a running service of the same model and slice measured it) or
 * `Estimate: 2,345 tokens/s capacity from memory bandwidth, fully used`, with the request shape the split assumes.
 * Undefined when there are no token prices.
 */
export function throughputBasisText(option: QuoteOption): string | undefined {
  const { capacityBasis, capacityTokensPerSecond, demandTokensPerSecond } =
    option.throughput;
  if (option.cost.costPerThousandTokens === undefined) return undefined;
  const parts: string[] = [];
  if (capacityTokensPerSecond !== undefined) {
    parts.push(
      capacityBasis === 'measured'
        ? `${tokensPerSecond(capacityTokensPerSecond)} capacity${
            option.throughput.measuredBy
              ? ` (measured on ${option.throughput.measuredBy.service})`
              : ''
          }`
        : `${tokensPerSecond(
            capacityTokensPerSecond,
          )} capacity from memory bandwidth`,
    );
  }
  if (demandTokensPerSecond === undefined) {
    parts.push('fully used');
  } else {
    const used =
      option.throughput.utilisation === undefined
        ? ''
        : ` (${Math.round(option.throughput.utilisation * 100)}% used)`;
    parts.push(`${tokensPerSecond(demandTokensPerSecond)} demand${used}`);
  }
  const label = capacityBasis === 'measured' ? 'Measured' : 'Estimate';
  return `${label}: ${parts.join(
    ', ',
  )}; 700 in + 300 out tokens per request, an input token at 1/10 of an output token`;
}

/**
 * What the row's cost per 1K output tokens rests on, short: `estimate, at full load` when no demand was given (the
 * GPU busy all the time: the lowest price it can reach), `measured, at 40% load` with a demand.
 */
export function tokenPriceBasisText(option: QuoteOption): string {
  const { demandTokensPerSecond, utilisation } = option.throughput;
  let load = 'at full load';
  if (demandTokensPerSecond !== undefined) {
    load =
      utilisation === undefined
        ? `at ${tokensPerSecond(demandTokensPerSecond)}`
        : `at ${Math.round(utilisation * 100)}% load`;
  }
  return `${throughputBasisLabel(option)}, ${load}`;
}

/** `3 of 4 left`, or `over by 1 (0 of 0 free)`; a dash when the quote withholds the team's figures. */
export function quotaText(option: ChoiceFigures): string {
  if (!option.quota) return '—';
  const { remaining, nominal, used } = option.quota;
  if (remaining < 0) {
    return `over by ${gpuEquivalents(-remaining)} (${gpuEquivalents(
      Math.max(0, nominal - used),
    )} of ${gpuEquivalents(nominal)} free)`;
  }
  return `${gpuEquivalents(remaining)} of ${gpuEquivalents(nominal)} left`;
}
