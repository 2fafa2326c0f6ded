import type { UsdMicros } from '../cost/money';
import type { SharingTier } from '../platform/types';
import type {
  FitAndPriceOption,
  PolicyVerdict,
  Quote,
  QuoteWithoutTeamFigures,
  UnavailableOption,
} from './types';

/**
 * A tier on a pool in a {@link CompactQuote}: the slice the backend's create takes for it (the first option of the
 * tier and pool in the quote's order: verdict, monthly cost, headroom) with the figures the tier step shows.
 *
 * @public
 */
export interface CompactQuoteChoice {
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  gpusPerReplica: number;
  verdict: PolicyVerdict;
  /** Every replica reserved and priced, a month (`QuoteOption.cost.monthly`). */
  monthlyMicros: UsdMicros;
  /** At the tokens/s served (`QuoteOption.cost.costPerThousandTokens`); absent when the throughput is unknown. */
  costPerThousandTokensMicros?: UsdMicros;
  headroomBytes: number;
  fullLengthSequences: number;
}

/**
 * A tier on a pool the model fits no slice of, in a {@link CompactQuote}: its closest slice's memory.
 *
 * @public
 */
export interface CompactQuoteUnavailable {
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  requiredBytes: number;
  availableBytes: number;
}

/**
 * `POST /quote?detail=summary`: the quote in a size that does not grow with what each option carries: one row per
 * tier and pool (the option the create takes for it), one per tier and pool the model fits nowhere (the closest
 * slice), which one is recommended and why. The whole {@link Quote} (every slice, memory breakdown, cost, throughput,
 * quota, budget, verdict reasons) is `POST /quote` (`detail=full`, the default); asked with `pool` and `tier`, it is
 * the one option's detail.
 *
 * @public
 */
export interface CompactQuote {
  detail: 'summary';
  service: string;
  team: string;
  environment: string;
  dtype: Quote['dtype'];
  dtypes: Quote['dtypes'];
  /** Options of the whole quote (several slices of one tier and pool count apart). */
  optionCount: number;
  choices: CompactQuoteChoice[];
  unavailable: CompactQuoteUnavailable[];
  /** The recommended choice's tier, pool and slice; absent when nothing is recommended. */
  recommended?: Pick<
    CompactQuoteChoice,
    'tier' | 'pool' | 'migProfile' | 'gpusPerReplica'
  >;
  recommendation?: Quote['recommendation'];
  /** As in {@link QuoteWithoutTeamFigures}: present when the verdicts weigh the platform's policy only. */
  teamFiguresWithheld?: string;
}

function key(slice: { tier: string; pool: string }): string {
  return `${slice.tier}/${slice.pool}`;
}

function headroom(u: UnavailableOption): number {
  return u.availableBytes - u.requiredBytes;
}

/**
 * The {@link CompactQuote} of a quote: its first option per tier and pool in the quote's order, and for each tier and
 * pool without an option the unavailable slice closest to fitting.
 *
 * @public
 */
export function compactQuote(
  quote: Quote | QuoteWithoutTeamFigures,
): CompactQuote {
  const choices = new Map<string, CompactQuoteChoice>();
  for (const option of quote.options as FitAndPriceOption[]) {
    const k = key(option.slice);
    if (choices.has(k)) continue;
    const { slice, cost } = option;
    choices.set(k, {
      tier: slice.tier,
      pool: slice.pool,
      ...(slice.migProfile !== undefined && { migProfile: slice.migProfile }),
      gpusPerReplica: slice.gpusPerReplica,
      verdict: option.verdict,
      monthlyMicros: cost.monthly,
      ...(cost.costPerThousandTokens !== undefined && {
        costPerThousandTokensMicros: cost.costPerThousandTokens,
      }),
      headroomBytes: option.headroomBytes,
      fullLengthSequences: option.fullLengthSequences,
    });
  }
  const closest = new Map<string, UnavailableOption>();
  for (const u of quote.unavailable) {
    const k = key(u.slice);
    const best = closest.get(k);
    if (!choices.has(k) && (!best || headroom(u) > headroom(best))) {
      closest.set(k, u);
    }
  }
  const recommended = quote.recommended?.slice;
  return {
    detail: 'summary',
    service: quote.service,
    team: quote.team,
    environment: quote.environment,
    dtype: quote.dtype,
    dtypes: quote.dtypes,
    optionCount: quote.options.length,
    choices: [...choices.values()],
    unavailable: [...closest.values()].map(u => ({
      tier: u.slice.tier,
      pool: u.slice.pool,
      ...(u.slice.migProfile !== undefined && {
        migProfile: u.slice.migProfile,
      }),
      requiredBytes: u.requiredBytes,
      availableBytes: u.availableBytes,
    })),
    ...(recommended && {
      recommended: {
        tier: recommended.tier,
        pool: recommended.pool,
        ...(recommended.migProfile !== undefined && {
          migProfile: recommended.migProfile,
        }),
        gpusPerReplica: recommended.gpusPerReplica,
      },
    }),
    ...(quote.recommendation && { recommendation: quote.recommendation }),
    ...('teamFiguresWithheld' in quote && {
      teamFiguresWithheld: quote.teamFiguresWithheld,
    }),
  };
}
