import {
  CompactQuote,
  CompactQuoteChoice,
  CompactQuoteUnavailable,
  describeSlice,
  DtypeOption,
  formatGb,
  Platform,
  Pool,
  Quote,
  QuoteOption,
  SharingTier,
  Slice,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ChoiceFigures } from './describeChoice';
import { describePlacement } from './describePlacement';
import { TierPickerValue } from './types';

/** A tier and pool the model does not fit: the closest slice and why. */
export interface UnavailableChoice {
  slice: Slice;
  requiredBytes: number;
  availableBytes: number;
  reason: string;
}

/**
 * One row of the picker: a tier on a pool, from the quote summary (`POST /quote?detail=summary`). When the model fits
 * some slice of it, `option` is the one the gpu backend takes on create for this tier and pool (the first in the
 * quote's order: policy verdict, monthly cost, headroom); otherwise `unavailable` is the closest slice and why it
 * does not fit.
 */
export interface TierChoice {
  key: string;
  tier: SharingTier;
  pool: string;
  option?: ChoiceFigures;
  unavailable?: UnavailableChoice;
  recommended: boolean;
}

/** Identifies a tier on a pool. */
export function choiceKey(choice: { tier: SharingTier; pool: string }): string {
  return `${choice.tier}/${choice.pool}`;
}

/**
 * The slice a summary row names, from its pool in the platform (`slicesFor`), with the pool: by GPUs per replica for
 * a row that fits; for one that does not (the summary names no GPU count), the slice with the memory it gives.
 */
function sliceOf(
  platform: Platform,
  row: {
    tier: SharingTier;
    pool: string;
    migProfile?: string;
    gpusPerReplica?: number;
    availableBytes?: number;
  },
): { slice: Slice; pool: Pool } | undefined {
  const pool = platform.pools.find(p => p.name === row.pool);
  if (!pool) return undefined;
  const candidates = slicesFor(platform, pool).filter(
    s => s.tier === row.tier && s.migProfile === row.migProfile,
  );
  const slice =
    row.gpusPerReplica !== undefined
      ? candidates.find(s => s.gpusPerReplica === row.gpusPerReplica)
      : candidates.find(
          s =>
            Math.round(s.deviceMemoryBytes * s.gpuMemoryUtilization) ===
            row.availableBytes,
        ) ?? candidates[candidates.length - 1];
  return slice && { slice, pool };
}

function figuresOf(
  row: CompactQuoteChoice,
  slice: Slice,
  pool: Pool,
): ChoiceFigures {
  return {
    slice,
    ...(pool.cluster !== undefined && { cluster: pool.cluster }),
    capacityType: pool.capacityType,
    verdict: row.verdict,
    replicas: row.replicas,
    scaling: row.scaling ?? { basis: 'fixed', burstReplicas: 0 },
    headroomBytes: row.headroomBytes,
    fullLengthSequences: row.fullLengthSequences,
    cost: {
      monthly: row.monthlyMicros,
      ...(row.costPerThousandTokensMicros !== undefined && {
        costPerThousandTokens: row.costPerThousandTokensMicros,
      }),
    },
    ...(row.quota && { quota: row.quota }),
  };
}

/** Why the closest slice of a tier and pool does not fit, in the words of the full quote's memory reason. */
function unavailableReason(u: CompactQuoteUnavailable, slice: Slice): string {
  if (u.requiredBytes > u.availableBytes) {
    return `needs ${formatGb(u.requiredBytes)} but ${describeSlice(
      slice,
    )} gives ${formatGb(u.availableBytes)}`;
  }
  return `${describeSlice(
    slice,
  )} holds fewer full-length sequences at once than the concurrency asks for`;
}

/**
 * The rows of a quote summary: tiers and pools the model fits, in the quote's order, then those it does not fit.
 * Each row's slice, cluster and capacity type are its pool's, from the platform; a row whose pool or slice the
 * platform no longer has (its config changed between the two answers) is left out until the next quote.
 */
export function tierChoices(
  summary: CompactQuote,
  platform: Platform,
): TierChoice[] {
  const recommendedKey = summary.recommended
    ? choiceKey(summary.recommended)
    : undefined;
  const choices: TierChoice[] = [];
  for (const row of summary.choices) {
    const found = sliceOf(platform, row);
    if (!found) continue;
    const key = choiceKey(row);
    choices.push({
      key,
      tier: row.tier,
      pool: row.pool,
      option: figuresOf(row, found.slice, found.pool),
      recommended: key === recommendedKey,
    });
  }
  for (const u of summary.unavailable) {
    const found = sliceOf(platform, u);
    if (!found) continue;
    choices.push({
      key: choiceKey(u),
      tier: u.tier,
      pool: u.pool,
      unavailable: {
        slice: found.slice,
        requiredBytes: u.requiredBytes,
        availableBytes: u.availableBytes,
        reason: unavailableReason(u, found.slice),
      },
      recommended: false,
    });
  }
  return choices;
}

/** The quoted dtype when the catalogue has no checkpoint of it for the runtime (the quote then has no options). */
export function unavailableQuotedDtype(
  quote: CompactQuote | Quote,
): DtypeOption | undefined {
  const quoted =
    'detail' in quote
      ? quote.quotedDtype
      : quote.dtypes.find(d => d.dtype === quote.dtype);
  return quoted && !quoted.available ? quoted : undefined;
}

/** How a value came to be chosen. */
export interface ChoiceOrigin {
  chosenBy: TierPickerValue['chosenBy'];
  recommendedWhenChosen: boolean;
}

/**
 * What the form stores for an option: the placement the backend takes, how it was chosen, and review text. From the
 * summary's figures at once; the full option (the row's detail) adds the approval's reasons and what an autoscaled
 * request is priced at.
 */
export function valueOf(
  option: ChoiceFigures | QuoteOption,
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

/** What decides whether a tier and pool can be submitted: its verdict and reasons, or why the model does not fit. */
export interface ChoiceStanding {
  option?: { verdict: QuoteOption['verdict']; reasons?: string[] };
  unavailable?: { reason: string };
}

/**
 * Why a value cannot be submitted, or undefined when it can (allowed, or allowed after approval): `dtype` is the
 * quoted dtype when it cannot be served, `standing` the value's tier and pool in the quote (undefined when the quote
 * does not offer it). The reasons of a forbidden option are said when known (the full quote's).
 */
export function problemWith(
  value: Pick<TierPickerValue, 'tier' | 'pool'>,
  dtype: DtypeOption | undefined,
  standing: ChoiceStanding | undefined,
): string | undefined {
  if (dtype) {
    return `The ${dtype.dtype} precision cannot be served: ${dtype.reason}`;
  }
  const where = `The ${value.tier} tier on pool ${value.pool}`;
  if (!standing || (!standing.option && !standing.unavailable)) {
    return `${where} is not offered for this service; choose one of the listed tiers`;
  }
  if (!standing.option) {
    return `${where} cannot run this model: ${standing.unavailable!.reason}`;
  }
  if (standing.option.verdict === 'forbidden') {
    const reasons = standing.option.reasons ?? [];
    return `${where} is not allowed${
      reasons.length > 0 ? `: ${reasons.join('; ')}` : ''
    }`;
  }
  return undefined;
}

/**
 * A tier and pool in a full quote (one narrowed to it by the request's `tier` and `pool`, or every one): the option
 * the backend's create takes, else the closest slice it does not fit.
 */
export function standingInQuote(
  quote: Quote,
  value: Pick<TierPickerValue, 'tier' | 'pool'>,
): ChoiceStanding | undefined {
  const key = choiceKey(value);
  const option = quote.options.find(o => choiceKey(o.slice) === key);
  if (option) return { option };
  let closest: Quote['unavailable'][number] | undefined;
  for (const u of quote.unavailable) {
    if (
      choiceKey(u.slice) === key &&
      (!closest ||
        u.availableBytes - u.requiredBytes >
          closest.availableBytes - closest.requiredBytes)
    ) {
      closest = u;
    }
  }
  return closest && { unavailable: closest };
}
