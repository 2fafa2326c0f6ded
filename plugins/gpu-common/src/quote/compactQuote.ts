import type { UsdMicros } from '../cost/money';
import type { SharingTier } from '../platform/types';
import type { OptionScaling } from './autoscaledReplicas';
import type {
  DtypeOption,
  FitAndPriceOption,
  PolicyVerdict,
  Quote,
  QuoteOption,
  QuoteWithoutTeamFigures,
  UnavailableOption,
} from './types';

/**
 * The team's quota on a {@link CompactQuoteChoice}'s pool, in GPU-equivalents rounded to 3 decimals
 * (`QuoteOption.quota`).
 *
 * @public
 */
export interface CompactQuoteQuota {
  /** The team's quota on the pool. */
  nominal: number;
  /** Already reserved by the team's services. */
  used: number;
  /** nominal - used - this option's request; negative when over quota. */
  remaining: number;
}

/**
 * A tier on a pool in a {@link CompactQuote}: the slice the backend's create takes for it (the first option of the
 * tier and pool in the quote's order: verdict, monthly cost, headroom) with the figures the tier step shows. The
 * slice itself (GPU model, isolation, allocation, spot or on-demand, cluster) is the pool's, from `GET /platform`
 * (`slicesFor`); the verdict's reasons, memory breakdown, token prices and throughput are in the full quote (the
 * request's `tier` and `pool` narrow it to this row).
 *
 * @public
 */
export interface CompactQuoteChoice {
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  gpusPerReplica: number;
  verdict: PolicyVerdict;
  /** Replicas reserved and priced (`QuoteOption.replicas`). */
  replicas: number;
  /** Present when the request autoscales (`QuoteOption.scaling` with a basis other than `fixed`). */
  scaling?: OptionScaling;
  /** Every replica reserved and priced, a month (`QuoteOption.cost.monthly`). */
  monthlyMicros: UsdMicros;
  /** At the tokens/s served (`QuoteOption.cost.costPerThousandTokens`); absent when the throughput is unknown. */
  costPerThousandTokensMicros?: UsdMicros;
  /** Whole bytes. */
  headroomBytes: number;
  fullLengthSequences: number;
  /** Absent when the quote withholds the team's figures (`teamFiguresWithheld`). */
  quota?: CompactQuoteQuota;
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
  /** Whole bytes. */
  requiredBytes: number;
  /** Whole bytes. */
  availableBytes: number;
}

/**
 * `POST /quote?detail=summary`: the quote in a size that does not grow with what each option carries: one row per
 * tier and pool (the option the create takes for it), one per tier and pool the model fits nowhere (the closest
 * slice), which one is recommended and why. The whole {@link Quote} (every slice, memory breakdown, cost, throughput,
 * quota, budget, verdict reasons) is `POST /quote` (`detail=full`, the default); asked with the request's `tier` and
 * `pool`, it is the detail of that one row.
 *
 * @public
 */
export interface CompactQuote {
  detail: 'summary';
  service: string;
  team: string;
  environment: string;
  dtype: Quote['dtype'];
  /** The quoted dtype's entry of `Quote.dtypes`: its checkpoint, or why it cannot be served (then no choices). */
  quotedDtype?: DtypeOption;
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

function equivalents(value: number): number {
  return Math.round(value * 1000) / 1000;
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
  for (const option of quote.options as Array<
    FitAndPriceOption & Partial<Pick<QuoteOption, 'quota'>>
  >) {
    const k = key(option.slice);
    if (choices.has(k)) continue;
    const { slice, cost, quota } = option;
    choices.set(k, {
      tier: slice.tier,
      pool: slice.pool,
      ...(slice.migProfile !== undefined && { migProfile: slice.migProfile }),
      gpusPerReplica: slice.gpusPerReplica,
      verdict: option.verdict,
      replicas: option.replicas,
      ...(option.scaling.basis !== 'fixed' && { scaling: option.scaling }),
      monthlyMicros: cost.monthly,
      ...(cost.costPerThousandTokens !== undefined && {
        costPerThousandTokensMicros: cost.costPerThousandTokens,
      }),
      headroomBytes: Math.round(option.headroomBytes),
      fullLengthSequences: option.fullLengthSequences,
      ...(quota && {
        quota: {
          nominal: equivalents(quota.nominal),
          used: equivalents(quota.used),
          remaining: equivalents(quota.remaining),
        },
      }),
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
  const quotedDtype = quote.dtypes.find(d => d.dtype === quote.dtype);
  return {
    detail: 'summary',
    service: quote.service,
    team: quote.team,
    environment: quote.environment,
    dtype: quote.dtype,
    ...(quotedDtype && { quotedDtype }),
    optionCount: quote.options.length,
    choices: [...choices.values()],
    unavailable: [...closest.values()].map(u => ({
      tier: u.slice.tier,
      pool: u.slice.pool,
      ...(u.slice.migProfile !== undefined && {
        migProfile: u.slice.migProfile,
      }),
      requiredBytes: Math.round(u.requiredBytes),
      availableBytes: Math.round(u.availableBytes),
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
