import {
  formatUsd,
  QuoteOption,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  ChoiceFigures,
  perReplicaCostText,
  scalingCostText,
  sliceText,
  TIER_LABELS,
} from './describeChoice';

/**
 * The review step's words for an option: `Dedicated on l4-ondemand: 1 x L4 per replica, 2 replicas`,
 * `$1,175.01 a month: 2 replicas x $587.50 (a month of 730 h)` (for an autoscaled request followed by what it is
 * priced at, see `scalingCostText`) and whether it needs approval, and why. The why and the autoscaled pricing are
 * the full option's: a summary row's figures say the rest.
 */
export function describePlacement(
  option: ChoiceFigures | QuoteOption,
  context: { environment: string; hoursPerMonth: number },
): { summary: string; cost: string; approval: string } {
  const full = 'reasons' in option ? option : undefined;
  const spot =
    option.capacityType === 'spot'
      ? ", spot capacity (can be reclaimed with two minutes' notice)"
      : '';
  const scaling = full && scalingCostText(full);
  const reasons = full?.reasons ?? [];
  return {
    summary: `${TIER_LABELS[option.slice.tier]} on ${
      option.slice.pool
    }${spot}: ${sliceText(option)}`,
    cost: `${formatUsd(option.cost.monthly)} a month: ${perReplicaCostText(
      option,
    )} (a month of ${context.hoursPerMonth} h)${scaling ? `. ${scaling}` : ''}`,
    approval:
      option.verdict === 'needs-approval'
        ? `Needed before it is deployed${
            reasons.length > 0 ? `: ${reasons.join('; ')}` : ''
          }`
        : `Not needed: allowed in ${context.environment}`,
  };
}
