import { UsdMicros } from '../cost/money';
import { CapacityType, Dtype } from '../platform/types';
import { FitResult } from '../sizing/fitSlices';
import type { OptionScaling } from './autoscaledReplicas';
import type { MonthSpend } from './governance';
import type { MeasuredCapacitySource } from './measuredCapacity';
import type { PoolCapacityFit } from './poolCapacityFit';
import { Slice } from '../tiers/types';

/**
 * What a team already holds, as the quote weighs a new request against its quota and budget.
 *
 * @public
 */
export interface TeamUsage {
  /** GPU units (1/5040 GPU) the team's existing services reserve, per pool name (a pool not listed: 0). */
  reservedGpuUnits: Record<string, number>;
  /** Monthly allocation cost of the team's existing services, in integer micro-dollars (see `UsdMicros`). */
  committedMonthlyCost: UsdMicros;
  /**
   * The team's spend this calendar month. When given, an option whose cost until the end of the month, added to
   * month-to-date spend and what the team holds, is above the monthly budget needs approval.
   */
  month?: MonthSpend;
}

/**
 * Whether a request may go ahead: `allowed` at once, `needs-approval` by an approver (over quota, over budget on
 * run-rate or on month-to-date spend, dedicated above the environment's GPU limit, spot capacity in production, or
 * beyond the pool's free capacity under the `approval` policy), or `forbidden` (the environment does not allow the
 * tier, or the pool's free capacity is exceeded and the platform refuses such requests).
 *
 * @public
 */
export type PolicyVerdict = 'allowed' | 'needs-approval' | 'forbidden';

/**
 * The team's quota on the option's pool, in GPU-equivalents.
 *
 * @public
 */
export interface QuotaFit {
  pool: string;
  /** The team's quota on the pool (`gpuQuota`; 0 when the pool is not listed). */
  nominal: number;
  /** Already reserved by the team's services. */
  used: number;
  /** What this request would reserve: GPU share x replicas. */
  requested: number;
  /** nominal - used - requested; negative when over quota. */
  remaining: number;
  fits: boolean;
  /**
   * `minimum-plus-burst` (see {@link QuoteOption.scaling}): how many of the burst replicas the team's quota has room
   * for after this option (`remaining` / one replica's share, at most `scaling.burstReplicas`). Kueue admits that many
   * while the team's other services do not burst into the same room; the rest wait. Absent for other bases.
   */
  burstReplicasWithinQuota?: number;
}

/**
 * The team's monthly budget against the option's monthly cost.
 *
 * @public
 */
export interface BudgetFit {
  monthlyBudget: UsdMicros;
  committed: UsdMicros;
  requested: UsdMicros;
  /** monthlyBudget - committed - requested; negative when over budget. */
  remaining: UsdMicros;
  fits: boolean;
}

/**
 * Money of one option.
 *
 * @public
 */
export interface OptionCost {
  /** Price of one whole GPU of the pool per hour. */
  gpuHour: UsdMicros;
  /** The replicas reserved and priced ({@link QuoteOption.replicas}), per hour. */
  hourly: UsdMicros;
  /** The replicas reserved and priced, per month (`Platform.hoursPerMonth`). */
  monthly: UsdMicros;
  /**
   * `minimum-plus-burst`: what the burst replicas (`scaling.burstReplicas`) would add running the whole month, the
   * most bursting can cost. Not reserved, not in `monthly` and not weighed against the budget: billed only while they
   * run. Absent when there is no burst.
   */
  burstMonthly?: UsdMicros;
  /** Monthly saving against the cheapest on-demand pool of the same GPU model, for spot pools. */
  spotSavingMonthly?: UsdMicros;
  /** Cost per 1,000 output tokens at the tokens/s actually served (demand, capped by capacity). */
  costPerThousandTokens?: UsdMicros;
  /** Cost per 1,000 output tokens with the replicas fully busy (at capacity). */
  idealCostPerThousandTokens?: UsdMicros;
  /**
   * Cost per 1,000,000 prompt tokens at the tokens/s served, split from the hour's cost by `tokenPrices`: an input
   * token costs 1/10 of an output token (prefill vs decode GPU time, see `PREFILL_TOKENS_PER_DECODE_TOKEN`).
   */
  costPerMillionInputTokens?: UsdMicros;
  /** Cost per 1,000,000 generated tokens at the tokens/s served (see `tokenPrices`). */
  costPerMillionOutputTokens?: UsdMicros;
  /** Cost of one request of 700 prompt + 300 output tokens (`ASSUMED_REQUEST_TOKENS`) at the tokens/s served. */
  costPerRequest?: UsdMicros;
}

/**
 * Throughput behind the cost per 1,000 tokens.
 *
 * @public
 */
export interface OptionThroughput {
  /** `stated` when the request gives `expectedTokensPerSecond`, `estimated` when the quote assumes full use. */
  basis: 'stated' | 'estimated';
  /**
   * Where the capacity comes from: `estimated` from the GPU's memory bandwidth (`estimateDecodeThroughput`), or
   * `measured`: the request's `measuredTokensPerSecond`, else the sustained tokens/s of a running service of the same
   * model and slice shape (`measuredBy`). Absent when there is no capacity figure.
   */
  capacityBasis?: 'estimated' | 'measured';
  /**
   * For a `measured` capacity read from a running service of the same model and slice shape: which service, over
   * which window. Absent when the request stated `measuredTokensPerSecond` or the capacity is estimated.
   */
  measuredBy?: MeasuredCapacitySource;
  /**
   * Tokens/s all replicas sustain when busy: the measured tokens/s per replica x replicas, else the estimate (see
   * `estimateDecodeThroughput`); undefined for an unknown GPU without a measured figure.
   */
  capacityTokensPerSecond?: number;
  /** The request's expected tokens/s. */
  demandTokensPerSecond?: number;
  /** Served / capacity. */
  utilisation?: number;
  /** Capacity / served: the real cost per 1,000 tokens over the ideal one (the report summariser's 2.5x). */
  costFactor?: number;
  /** Demand above capacity: more replicas or a larger slice are needed. */
  saturated?: boolean;
}

/**
 * One way to run the request: a slice the model fits, what it costs, and whether policy lets it through.
 *
 * @public
 */
export interface QuoteOption extends Omit<FitResult, 'fits' | 'reason'> {
  /**
   * The cluster whose pool the option is on (`Pool.cluster`); absent when no cluster is configured. An option on a
   * cluster its environment may not use (`gpu.environments[].clusters`) is `forbidden`.
   */
  cluster?: string;
  capacityType: CapacityType;
  /**
   * Replicas reserved against the team's quota and priced: the request's `replicas`, or for an autoscaled request
   * its maximum or its minimum (at least 1), as the platform's `gpu.admission.autoscaledReplicas` decides;
   * `scaling.basis` says which.
   */
  replicas: number;
  /** Why `replicas` are the ones reserved and priced, with the autoscaling range and the burst above them. */
  scaling: OptionScaling;
  /** GPU share x replicas. */
  gpuEquivalents: number;
  cost: OptionCost;
  throughput: OptionThroughput;
  quota: QuotaFit;
  budget: BudgetFit;
  /**
   * The option against its pool's free capacity (what every team holds there): present when the quote weighed it
   * (a full quote by the backend). One that does not fit needs approval, or is `forbidden` when the platform refuses
   * requests beyond a pool's free capacity (`gpu.admission.whenOverPoolCapacity`).
   */
  poolCapacity?: PoolCapacityFit;
  verdict: PolicyVerdict;
  /** Why the verdict is not `allowed`; empty when it is. */
  reasons: string[];
}

/**
 * A slice the model does not fit.
 *
 * @public
 */
export interface UnavailableOption {
  slice: Slice;
  requiredBytes: number;
  availableBytes: number;
  reason: string;
}

/**
 * One dtype of the request's model on its runtime: the checkpoint it loads, or why it cannot be served.
 *
 * @public
 */
export interface DtypeOption {
  dtype: Dtype;
  /** The catalogue names a checkpoint of the model in this dtype for the runtime. */
  available: boolean;
  /** The Hugging Face repository (vLLM) or Ollama tag loaded, when available. */
  checkpoint?: string;
  /** Its format: the vLLM quantisation method (`none`, `fp8`, `awq`, ...) or the GGUF type (`q4_K_M`, ...). */
  format?: string;
  /** Why the dtype is unavailable, naming the available ones. */
  reason?: string;
}

/**
 * Every way to run a service request, sorted (allowed first, then cheapest per month, then most memory headroom),
 * with the slices it does not fit and a recommendation.
 *
 * @public
 */
export interface Quote {
  service: string;
  team: string;
  environment: string;
  /** The dtype quoted: the request's, else the runtime's default for the model (`defaultDtypeFor`). */
  dtype: Dtype;
  /**
   * Every dtype of the model on the request's runtime, most precise first. When the quoted one is unavailable there
   * are no options and no unavailable slices: its `reason` says why and which dtypes can be served.
   */
  dtypes: DtypeOption[];
  options: QuoteOption[];
  unavailable: UnavailableOption[];
  /**
   * The cheapest allowed option (stronger isolation, then more headroom, on ties; in production, on-demand dedicated
   * or MIG first). When nothing is allowed, the best option that needs approval; never a forbidden one.
   */
  recommended?: QuoteOption;
  /** Why {@link Quote.recommended} was chosen over the other options; absent when nothing is recommended. */
  recommendation?: QuoteRecommendation;
}

/**
 * What decided the recommendation, in the order the quote weighs it:
 * - `only-option`: a single option may go ahead;
 * - `allowed-by-policy`: the only option that policy, quota and budget allow at once (the rest need approval);
 * - `environment-preference`: a cheaper option is allowed, but the environment prefers this one (production:
 *   on-demand dedicated or MIG first);
 * - `lowest-price`: the cheapest of the options allowed at once;
 * - `most-free-capacity`: as cheap as another allowed option, on a pool with more free capacity;
 * - `needs-approval`: nothing is allowed at once; the best option that an approver can grant.
 *
 * @public
 */
export type QuoteRecommendationReason =
  | 'only-option'
  | 'allowed-by-policy'
  | 'environment-preference'
  | 'lowest-price'
  | 'most-free-capacity'
  | 'needs-approval';

/**
 * Why the quote recommends its option: the code to switch on, and the same in words.
 *
 * @public
 */
export interface QuoteRecommendation {
  /** The code to switch on. */
  reason: QuoteRecommendationReason;
  /** For people; never parsed. */
  message: string;
}

/**
 * An option of a {@link QuoteWithoutTeamFigures}: fit and price, without the team's quota and budget; its verdict
 * and reasons weigh the platform's policy only (tier, dedicated GPU limit, spot in production).
 *
 * @public
 */
export type FitAndPriceOption = Omit<QuoteOption, 'quota' | 'budget'>;

/**
 * A quote for a caller who may not read the team's quota (`GET /teams/{team}/quota` would refuse them): the
 * {@link Quote} without the team's quota, use and budget.
 *
 * @public
 */
export interface QuoteWithoutTeamFigures
  extends Omit<Quote, 'options' | 'recommended'> {
  /** Every option that fits, as in {@link Quote.options}, without the team's figures. */
  options: FitAndPriceOption[];
  /** The option {@link Quote.recommended} names, by the platform's policy only. */
  recommended?: FitAndPriceOption;
  /** Why the team's figures are left out and what the verdicts weigh instead. */
  teamFiguresWithheld: string;
}
