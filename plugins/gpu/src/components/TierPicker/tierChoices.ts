import {
  describeSlice,
  Quote,
  QuoteOption,
  SharingTier,
  UnavailableOption,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { describePlacement } from './describePlacement';
import { unavailableQuotedDtype } from './dtypeAvailability';
import { TierPickerValue } from './types';

/**
 * One row of the picker: a tier on a pool. When the model fits some slice of it, `option` is the one the gpu
 * backend takes on create for this tier and pool (the first in the quote's order: policy verdict, monthly cost,
 * headroom); otherwise `unavailable` is the closest slice and why it does not fit.
 */
export interface TierChoice {
  key: string;
  tier: SharingTier;
  pool: string;
  option?: QuoteOption;
  unavailable?: UnavailableOption;
  recommended: boolean;
}

/** Identifies a tier on a pool. */
export function choiceKey(choice: { tier: SharingTier; pool: string }): string {
  return `${choice.tier}/${choice.pool}`;
}

/** The rows of a quote: tiers and pools the model fits, in the quote's order, then those it does not fit. */
export function tierChoices(quote: Quote): TierChoice[] {
  const recommendedKey = quote.recommended
    ? choiceKey(quote.recommended.slice)
    : undefined;
  const choices = new Map<string, TierChoice>();
  for (const option of quote.options) {
    const key = choiceKey(option.slice);
    if (!choices.has(key)) {
      choices.set(key, {
        key,
        tier: option.slice.tier,
        pool: option.slice.pool,
        option,
        recommended: key === recommendedKey,
      });
    }
  }
  const closest = new Map<string, UnavailableOption>();
  for (const unavailable of quote.unavailable) {
    const key = choiceKey(unavailable.slice);
    const best = closest.get(key);
    if (
      !choices.has(key) &&
      (!best ||
        unavailable.availableBytes - unavailable.requiredBytes >
          best.availableBytes - best.requiredBytes)
    ) {
      closest.set(key, unavailable);
    }
  }
  for (const [key, unavailable] of closest) {
    choices.set(key, {
      key,
      tier: unavailable.slice.tier,
      pool: unavailable.slice.pool,
      unavailable,
      recommended: false,
    });
  }
  return [...choices.values()];
}

/** How a value came to be chosen. */
export interface ChoiceOrigin {
  chosenBy: TierPickerValue['chosenBy'];
  recommendedWhenChosen: boolean;
}

/** What the form stores for an option: the placement the backend takes, how it was chosen, and review text. */
export function valueOf(
  option: QuoteOption,
  origin: ChoiceOrigin,
  context: { environment: string; hoursPerMonth: number },
): TierPickerValue {
  return {
    tier: option.slice.tier,
    pool: option.slice.pool,
    slice: describeSlice(option.slice),
    ...(option.slice.migProfile ? { migProfile: option.slice.migProfile } : {}),
    gpusPerReplica: option.slice.gpusPerReplica,
    needsApproval: option.verdict === 'needs-approval',
    chosenBy: origin.chosenBy,
    recommendedWhenChosen: origin.recommendedWhenChosen,
    ...describePlacement(option, context),
  };
}

const VALUE_KEYS: (keyof TierPickerValue)[] = [
  'tier',
  'pool',
  'slice',
  'migProfile',
  'gpusPerReplica',
  'needsApproval',
  'chosenBy',
  'recommendedWhenChosen',
  'summary',
  'cost',
  'approval',
];

/** Whether two values are the same choice, said the same way. */
export function sameValue(
  a: Partial<TierPickerValue> | undefined,
  b: Partial<TierPickerValue> | undefined,
): boolean {
  return VALUE_KEYS.every(key => a?.[key] === b?.[key]);
}

/**
 * Why a value cannot be submitted against a quote, or undefined when it can (allowed, or allowed after approval).
 */
export function problemWith(
  value: Pick<TierPickerValue, 'tier' | 'pool'>,
  quote: Quote,
): string | undefined {
  const dtype = unavailableQuotedDtype(quote);
  if (dtype) {
    return `The ${dtype.dtype} precision cannot be served: ${dtype.reason}`;
  }
  const choice = tierChoices(quote).find(c => c.key === choiceKey(value));
  const where = `The ${value.tier} tier on pool ${value.pool}`;
  if (!choice) {
    return `${where} is not offered for this service; choose one of the listed tiers`;
  }
  if (!choice.option) {
    return `${where} cannot run this model: ${choice.unavailable!.reason}`;
  }
  if (choice.option.verdict === 'forbidden') {
    return `${where} is not allowed: ${choice.option.reasons.join('; ')}`;
  }
  return undefined;
}
