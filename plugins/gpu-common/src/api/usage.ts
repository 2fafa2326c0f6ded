import type { ServiceThroughput, ServiceTokenCosts } from './serviceThroughput';
import { SharingTier } from '../platform/types';
import { UsdMicros } from '../cost/money';
import type { ManagedApiComparison } from '../cost/managedApiComparison';
import type { PoolCostSplit } from '../cost/poolCostSplit';
import { ServiceStatus } from './types';
import type { SortOrder } from './governance';

/**
 * Named windows the usage and cost routes accept; ISO 8601 durations (`PT90M`, `P14D`) between 5 minutes and 90 days
 * are accepted too.
 *
 * @public
 */
export const USAGE_WINDOWS = ['1h', '6h', '24h', '7d', '30d'] as const;

/** @public */
export type UsageWindowName = (typeof USAGE_WINDOWS)[number];

/**
 * The time range a usage or cost figure covers. Times are ISO 8601 in UTC.
 *
 * @public
 */
export interface UsageWindow {
  /** The window as asked for, e.g. `24h` or `P14D`. */
  label: string;
  start: string;
  end: string;
  durationSeconds: number;
  /** Resolution of the time series, in seconds. */
  stepSeconds: number;
}

/**
 * How a figure was obtained:
 *
 * - `measured`: read from the service's own series (DCGM labelled with its pods, dedicated GPUs);
 * - `measured-mig-instance`: read from the DCGM series of the service's MIG instance (`GPU_I_ID`/`GPU_I_PROFILE`);
 * - `apportioned-by-tokens`: a shared GPU's measured value split between its co-located services by their share of
 *   generated tokens (MPS and time-sliced; DCGM copies device values to every sharing pod);
 * - `apportioned-evenly`: as above but no service on the device generated tokens, so split evenly;
 * - `nominal`: the allocated share (e.g. 1/R of a GPU), not a measurement;
 * - `allocation`: from the database (reservations and prices), independent of metrics.
 *
 * @public
 */
export type AttributionMethod =
  | 'measured'
  | 'measured-mig-instance'
  | 'apportioned-by-tokens'
  | 'apportioned-evenly'
  | 'nominal'
  | 'allocation';

/**
 * How far a figure can be trusted: `high` for direct measurements and the bill, `medium` for apportioned shares,
 * `low` for nominal or partial data.
 *
 * @public
 */
export type Confidence = 'high' | 'medium' | 'low';

/**
 * A number with where it came from.
 *
 * @public
 */
export interface AttributedValue {
  value: number;
  method: AttributionMethod;
  confidence: Confidence;
  /** Plain-language explanation for the card, e.g. `split by share of generated tokens with 2 other services`. */
  note?: string;
  /**
   * Share of the window (0 to 1) the figure was measured over: the time the service's pods had DCGM samples. Below
   * 0.9 the confidence drops one level, below 0.5 it is `low`; usage cost bills the measured part only.
   */
  coverage?: number;
}

/**
 * Whether usage metrics could be read:
 *
 * - `available`: Prometheus answered every query;
 * - `partial`: some metric families failed or had no data (`missing` names them), the rest is shown;
 * - `no-data`: Prometheus answered but has no series for the service yet;
 * - `unavailable`: Prometheus is down, slow, or returned an error (`reason` says which);
 * - `not-configured`: no `gpu.prometheus.baseUrl` in config.
 *
 * Allocation cost is always present, whatever the state.
 *
 * @public
 */
export type MetricsState =
  | 'available'
  | 'partial'
  | 'no-data'
  | 'unavailable'
  | 'not-configured';

/** @public */
export interface MetricsStatus {
  state: MetricsState;
  /** Why usage is missing or partial, e.g. `Prometheus did not answer within 5000 ms`. */
  reason?: string;
  /** Metric families that failed or had no data, e.g. `DCGM_FI_DEV_FB_USED`. */
  missing?: string[];
  /**
   * Present and true when the metrics source holds simulated series (`gpu.prometheus.simulated`, the
   * `./scripts/start --cluster` demo): the figures are demo data, not measured, and the UI says so.
   */
  simulated?: boolean;
}

/**
 * One point of a time series: time in milliseconds since the epoch (UTC) and the value.
 *
 * @public
 */
export interface TimePoint {
  timestamp: number;
  value: number;
}

/**
 * Where a service stands against its latency budget over a window:
 *
 * - `within`: the measured p95 end-to-end latency is at or below the budget;
 * - `over`: it is above the budget;
 * - `unknown`: there is no measured p95 (see {@link LatencyBudgetUnknownReason}).
 *
 * @public
 */
export type LatencyBudgetState = 'within' | 'over' | 'unknown';

/**
 * Why a latency budget's state is `unknown`:
 *
 * - `metrics-unavailable`: Prometheus is not configured or did not answer for the window;
 * - `no-requests`: Prometheus answered, but vLLM's latency histogram has no completed request in the window.
 *
 * @public
 */
export type LatencyBudgetUnknownReason = 'metrics-unavailable' | 'no-requests';

/**
 * A service's latency budget against the p95 end-to-end latency measured over a window (vLLM's
 * `vllm:e2e_request_latency_seconds`).
 *
 * @public
 */
export interface LatencyBudgetStatus {
  /** The budget's p95, seconds (the request's `latencyBudget.p95Seconds`). */
  budgetP95Seconds: number;
  /** Whether the window's measured p95 kept the budget. */
  state: LatencyBudgetState;
  /** The window's measured p95, seconds; absent when `unknown`. */
  measuredP95Seconds?: number;
  /** Only when `unknown`. */
  unknownReason?: LatencyBudgetUnknownReason;
}

/**
 * Measured and attributed usage of one service over a window (`GET /services/:id/usage?window=`). Every optional
 * figure is absent when metrics are unavailable or have no data.
 *
 * @public
 */
export interface ServiceUsage {
  serviceId: string;
  name: string;
  team: string;
  namespace: string;
  environment: string;
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  window: UsageWindow;
  metrics: MetricsStatus;
  /** GPU-equivalents held by all replicas (cost share). */
  gpuEquivalents: number;
  /** Average GPU utilisation of the service's share, 0 to 1. */
  utilisation?: AttributedValue;
  /** Average DCGM_FI_PROF_GR_ENGINE_ACTIVE (0 to 1), when the exporter publishes it. */
  engineActive?: AttributedValue;
  memory?: {
    /** Average framebuffer memory used, bytes. */
    usedBytes: AttributedValue;
    /** Highest framebuffer use in the window, bytes. */
    peakUsedBytes: number;
    /** Memory the service's slice may use (all replicas), bytes. */
    allocatedBytes: number;
    /** Peak used / allocated. */
    peakFraction: number;
  };
  /** Average power draw, watts. */
  powerWatts?: AttributedValue;
  /** XID errors seen in the window (samples with a non-zero XID), and the last XID code. */
  xid?: { errorSamples: number; lastCode?: number };
  tokens?: {
    generated: number;
    prompt: number;
    generatedPerSecond: number;
    promptPerSecond: number;
    /** This service's share of the tokens generated on the devices it shares (1 when not sharing). */
    shareOfDevice: number;
  };
  /** Latest vLLM gauges. */
  requests?: { running: number; waiting: number };
  /** Latest vLLM KV-cache usage, 0 to 1. */
  kvCacheUsage?: number;
  /** End-to-end request latency over the window, seconds, from vLLM's histogram. */
  latency?: { p50Seconds?: number; p95Seconds?: number; p99Seconds?: number };
  /** The service's latency budget (when its request states one) against the window's measured p95. */
  latencyBudget?: LatencyBudgetStatus;
  series: {
    utilisation: TimePoint[];
    memoryUsedBytes: TimePoint[];
    generatedTokensPerSecond: TimePoint[];
    queueDepth: TimePoint[];
  };
}

/**
 * Cost bases in integer micro-dollars: allocation (what the bill says: held GPUs while the workload runs, see
 * {@link AccrualBasis}), usage (allocation x utilisation) and idle (allocation - usage). `usageMicros` and
 * `idleMicros` are absent when utilisation is unknown. `reservedMicros` is what the reservations held while nothing
 * ran would cost (a dry run, a workload Kueue has not admitted yet): reserved, not spend, never in a budget's burn;
 * absent where it is not known (days from stored snapshots).
 *
 * @public
 */
export interface CostFigures {
  allocationMicros: UsdMicros;
  usageMicros?: UsdMicros;
  idleMicros?: UsdMicros;
  reservedMicros?: UsdMicros;
}

/**
 * What a service's allocation cost accrues over:
 *
 * - `cluster-status`: apply mode; a held reservation costs while the workload runs as its cluster says (from the
 *   Deployment's first available replica until it has none: torn down, failed, evicted or pending in Kueue), and is
 *   reserved while it does not;
 * - `reservation`: GitOps mode; Backstage does not read that cluster, so a held reservation costs from when it is
 *   held (approved) until it is released;
 * - `dry-run`: nothing runs; a held reservation is reserved, never spend.
 *
 * @public
 */
export type AccrualBasis = 'cluster-status' | 'reservation' | 'dry-run';

/**
 * Whether a service in apply mode runs at the end of the window, as its cluster said, and since when (the start of
 * the run, or when the last run stopped or the reservation was held).
 *
 * @public
 */
export interface WorkloadRunState {
  running: boolean;
  since?: string;
}

/**
 * One day of a service's cost, from a stored daily snapshot or computed live.
 *
 * @public
 */
export interface DailyCost extends CostFigures {
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  source: 'snapshot' | 'live';
  utilisation?: number;
  generatedTokens?: number;
}

/**
 * What a recommendation proposes.
 *
 * - `right-size`: the service uses a small part of its slice; a smaller slice (often a MIG profile) fits;
 * - `move-up`: memory above 95% of the slice (out-of-memory risk, a larger slice is needed), or a latency budget
 *   broken on a shared tier (an isolated slice is needed); its `reason` says which; the saving is negative;
 * - `idle`: utilisation below 20% for 30 minutes in production (the idle-GPU alert);
 * - `scale-to-zero`: no requests in the window; KEDA with `minReplicas: 0` would stop paying for it;
 * - `switch-sharing`: a service on a shared tier whose measured traffic suits the other sharing mode better (MPS to
 *   time-slicing for bursty traffic, time-slicing to MPS for steady concurrent traffic); its `reason` says which.
 *
 * @public
 */
export type RecommendationKind =
  | 'right-size'
  | 'move-up'
  | 'idle'
  | 'scale-to-zero'
  | 'switch-sharing';

/**
 * Why a `move-up` or a `switch-sharing` is advised:
 *
 * - `memory-pressure` (move-up): peak memory above 95% of the slice;
 * - `latency-budget-broken` (move-up): the service states a latency budget (`latencyBudget.p95Seconds`) and the p95
 *   end-to-end latency measured over the window is above it while it runs on a shared tier (MPS or time-sliced): it
 *   is advised up to an isolated slice (MIG, else a dedicated GPU);
 * - `bursty-traffic` (switch-sharing, MPS to time-sliced): near idle at most of the window's steps, its bursts filling
 *   its share, with few requests running at once: time-slicing gives it the whole GPU in turns instead of MPS's
 *   fixed part of the threads;
 * - `steady-concurrent-traffic` (switch-sharing, time-sliced to MPS): busy at nearly every step, steadily, with
 *   several requests running at once: MPS runs the kernels of the pods sharing the GPU concurrently instead of
 *   switching between them.
 *
 * @public
 */
export type RecommendationReason =
  | 'memory-pressure'
  | 'latency-budget-broken'
  | 'bursty-traffic'
  | 'steady-concurrent-traffic';

/** @public */
export interface Recommendation {
  kind: RecommendationKind;
  /** Why it is advised; present on `move-up` and `switch-sharing`. */
  reason?: RecommendationReason;
  severity: 'info' | 'warning' | 'critical';
  serviceId: string;
  serviceName: string;
  team: string;
  title: string;
  message: string;
  /** Monthly allocation saving if applied; negative when the change costs more (move-up). */
  monthlySavingMicros: UsdMicros;
  /** The slice proposed, for right-size, move-up and switch-sharing. */
  target?: {
    tier: SharingTier;
    pool: string;
    migProfile?: string;
    gpuEquivalents: number;
  };
  /** The measurements behind it. */
  evidence: {
    utilisation?: number;
    peakMemoryBytes?: number;
    allocatedMemoryBytes?: number;
    generatedTokens?: number;
    /** The window's measured p95 end-to-end latency, when the service states a latency budget. */
    latencyP95Seconds?: number;
    /** The service's latency budget (`latencyBudget.p95Seconds`), when it states one. */
    latencyBudgetP95Seconds?: number;
    /** switch-sharing: the window's steps at which the service's utilisation was measured. */
    measuredSteps?: number;
    /** switch-sharing: the share of those steps (0 to 1) at which it was near idle (below 10% of its share). */
    idleStepShare?: number;
    /** switch-sharing: its mean and highest utilisation of a step (of the share it holds, 0 to 1). */
    meanStepUtilisation?: number;
    peakStepUtilisation?: number;
    /**
     * switch-sharing: requests running at once (`vllm:num_requests_running`) per pod, averaged over the steps at
     * which it ran any.
     */
    runningRequestsWhileServing?: number;
  };
}

/**
 * Cost of one service (`GET /services/:id/cost?window=`).
 *
 * @public
 */
export interface ServiceCost extends CostFigures {
  serviceId: string;
  name: string;
  team: string;
  namespace: string;
  environment: string;
  status: ServiceStatus;
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  window: UsageWindow;
  metrics: MetricsStatus;
  gpuEquivalents: number;
  /** Price of one GPU-hour of the pool. */
  gpuHourPriceMicros: UsdMicros;
  /** What the allocation cost accrues over. */
  accrualBasis: AccrualBasis;
  /** Held but not running within the window: reserved, not spend. */
  reservedMicros: UsdMicros;
  /** Only for `cluster-status`: whether the workload runs at the end of the window. */
  workload?: WorkloadRunState;
  /** Hours the service held GPUs and ran within the window (what `allocationMicros` is over). */
  allocatedHours: number;
  /** Hours it held GPUs without running within the window (what `reservedMicros` is over). */
  reservedHours: number;
  /** Utilisation the usage/idle split used. */
  utilisation?: AttributedValue;
  /** Idle / allocation, 0 to 1. */
  idleShare?: number;
  /** On a spot pool: what the same hours would have cost more on the cheapest on-demand pool of the GPU model. */
  spotSavingMicros?: UsdMicros;
  generatedTokens?: number;
  /** Allocation cost / (generated tokens / 1000); absent without tokens. */
  costPerThousandTokensMicros?: UsdMicros;
  /** Per 1M input and output tokens and per request, measured or estimated (`ServiceTokenCosts`). */
  tokenCosts?: ServiceTokenCosts;
  /** Against the managed API of `gpu.managedApi`, when configured and the service holds GPUs. */
  managedApi?: ManagedApiComparison;
  /** Sustained tokens/s of the replicas, measured or estimated; absent when neither is known. */
  throughput?: ServiceThroughput;
  /** Calendar month (UTC) so far, snapshots plus live. */
  monthToDate: CostFigures & {
    /** `YYYY-MM`. */
    month: string;
    /** Days taken from stored snapshots. */
    snapshotDays: number;
  };
  /**
   * Month-to-date allocation plus the rest of the month at the reservations held now (taken to run: a pending
   * workload is admitted some time; nothing for a dry run).
   */
  projectedMonthMicros: UsdMicros;
  /** A whole month at the reservations held now (reserved, whether or not the workload runs). */
  monthlyAllocationMicros: UsdMicros;
  /** Daily costs of the window (snapshots where stored, else live). */
  daily: DailyCost[];
  recommendations: Recommendation[];
}

/**
 * One service's row in team and overview tables.
 *
 * @public
 */
export interface ServiceCostSummary extends CostFigures {
  serviceId: string;
  name: string;
  /** The service's catalog entity, e.g. `component:default/summariser`, when it has one. */
  entityRef?: string;
  team: string;
  namespace: string;
  environment: string;
  status: ServiceStatus;
  tier: SharingTier;
  pool: string;
  migProfile?: string;
  gpuEquivalents: number;
  accrualBasis: AccrualBasis;
  /** Held but not running within the window: reserved, not spend. */
  reservedMicros: UsdMicros;
  /** Only for `cluster-status`: whether the workload runs at the end of the window. */
  workload?: WorkloadRunState;
  utilisation?: AttributedValue;
  peakMemoryFraction?: number;
  generatedTokens?: number;
  costPerThousandTokensMicros?: UsdMicros;
  spotSavingMicros?: UsdMicros;
  /**
   * Shared tiers: the busy time of the service's pods above the share it holds (a pod using more than its 1/R of an
   * MPS GPU while its neighbours idled) at the GPU-hour price. Not in `usageMicros`, which is capped at the allocation.
   */
  aboveShareMicros?: UsdMicros;
  monthToDateMicros: UsdMicros;
  projectedMonthMicros: UsdMicros;
}

/**
 * A service counted in a total without a usage figure: it spent in the window but its utilisation is unknown, so its
 * allocation is in the total's allocation and not in its usage or idle.
 *
 * @public
 */
export interface ServiceWithoutUsage {
  serviceId: string;
  name: string;
}

/**
 * A team's cost and budget burn (`GET /teams/:team/cost?window=`).
 *
 * @public
 */
export interface TeamCost extends CostFigures {
  team: string;
  window: UsageWindow;
  metrics: MetricsStatus;
  /** `YYYY-MM`, UTC. */
  month: string;
  monthlyBudgetMicros: UsdMicros;
  monthToDateMicros: UsdMicros;
  projectedMonthMicros: UsdMicros;
  /** Month-to-date / budget (may exceed 1). Absent with a zero budget. */
  budgetBurn?: number;
  /** Projected / budget. */
  projectedBudgetBurn?: number;
  /** Share of the month elapsed, 0 to 1: burn above it means over pace. */
  monthElapsed: number;
  spotSavingMicros: UsdMicros;
  /** The services whose allocation is in the total but not in its usage and idle (utilisation unknown). */
  withoutUsage?: ServiceWithoutUsage[];
  /** Sum of the services' `aboveShareMicros`: busy time on shared GPUs above the shares held, in no usage figure. */
  aboveShareMicros?: UsdMicros;
  /** Current services: deleted ones leave the list once they held nothing in the window (their cost stays in the totals). */
  services: ServiceCostSummary[];
  /**
   * The team's batch jobs that held GPUs in the window or this month. Their cost is in the team's `allocationMicros`,
   * `monthToDateMicros` and `projectedMonthMicros` (and so its budget burn), not in usage and idle: a batch job's
   * utilisation is not measured.
   */
  batchJobs?: BatchJobCostSummary[];
  recommendations: Recommendation[];
}

/**
 * A batch job in its team's cost: the GPUs its reservation held, at the pool's price, from its submission to its
 * release (the Job finished or was gone), or to now while it holds them.
 *
 * @public
 */
export interface BatchJobCostSummary {
  /** The batch id (the Job's `gpu.backstage.io/batch-id` label). */
  batchId: string;
  name: string;
  team: string;
  namespace: string;
  environment: string;
  pool: string;
  /** `active` while it holds its GPUs, `finished` once released. */
  state: 'active' | 'finished';
  /** What became of it: see {@link BatchJobOutcome}. */
  outcome: BatchJobOutcome;
  /** Why its GPUs were released, in words (`the Job completed`, `the Job is gone from its cluster`, ...). */
  finishReason?: string;
  /** GPUs its reservation holds or held: pods at once x GPUs per pod. */
  gpus: number;
  /** GPU-equivalents it holds at the window's end. */
  gpuEquivalents: number;
  /** GPU-hours it held in the window (what `allocationMicros` prices). */
  gpuHours: number;
  /** What it held in the window. */
  allocationMicros: UsdMicros;
  monthToDateMicros: UsdMicros;
  /** Month to date plus the rest of the month at what it holds now. */
  projectedMonthMicros: UsdMicros;
  heldAt?: string;
  releasedAt?: string;
}

/**
 * What became of a batch job: `running` while it holds its GPUs (waiting for Kueue or running); once its GPUs are
 * released, `completed` or `failed` as its Job ended, or `released` when it ended otherwise (gone from its cluster,
 * or its apply failed).
 *
 * @public
 */
export type BatchJobOutcome = 'running' | 'completed' | 'failed' | 'released';

/**
 * The batch jobs of a team or pool in an overview: how many held GPUs in the window or this month, the GPU-hours and
 * cost they held in the window, month to date and projected (each the sum of their {@link BatchJobCostSummary}).
 *
 * @public
 */
export interface BatchJobCostTotals {
  count: number;
  gpuHours: number;
  allocationMicros: UsdMicros;
  monthToDateMicros: UsdMicros;
  projectedMonthMicros: UsdMicros;
}

/**
 * A pool in the overview: its capacity cost split ({@link PoolCostSplit}, batch jobs' held GPUs in `allocated`), and
 * what its batch jobs held.
 *
 * @public
 */
export type OverviewPoolCost = PoolCostSplit & {
  /** The pool's batch jobs that held GPUs in the window or this month; absent when none did. */
  batchJobs?: BatchJobCostTotals;
};

/**
 * Every live service at once, for the governance page (`GET /overview?window=`), and the batch jobs' cost per team
 * and pool. Computed with a constant number of PromQL queries whatever the number of services.
 *
 * @public
 */
export interface Overview extends CostFigures {
  window: UsageWindow;
  /**
   * The cluster the overview is narrowed to (`GET /overview?cluster=`): its services, its pools, and the teams with
   * quota or a service there, their figures counting what they have on it. Absent: every cluster.
   */
  cluster?: string;
  metrics: MetricsStatus;
  /** PromQL queries the overview issued. */
  queryCount: number;
  month: string;
  monthToDateMicros: UsdMicros;
  projectedMonthMicros: UsdMicros;
  spotSavingMicros: UsdMicros;
  /** The services whose allocation is in the total but not in its usage and idle (utilisation unknown). */
  withoutUsage?: ServiceWithoutUsage[];
  /** Sum of the services' `aboveShareMicros`: busy time on shared GPUs above the shares held, in no usage figure. */
  aboveShareMicros?: UsdMicros;
  /** Current services: deleted ones leave the list once they held nothing in the window (their cost stays in the totals). */
  services: ServiceCostSummary[];
  /**
   * Per pool, in pool order: its capacity cost a month (maxNodes x node price) split into what reservations (of
   * services and batch jobs) hold now, what its MIG layout strands and what is free; the three add up to the capacity
   * exactly (`poolCostSplit`). With what its batch jobs held.
   */
  pools: OverviewPoolCost[];
  /**
   * The batch jobs that held GPUs in the window or this month, summed; absent when none did. Their cost is in
   * `allocationMicros`, `monthToDateMicros` and `projectedMonthMicros` (not in usage and idle), as in team cost.
   */
  batchJobs?: BatchJobCostTotals;
  teams: Array<
    CostFigures & {
      team: string;
      monthlyBudgetMicros: UsdMicros;
      monthToDateMicros: UsdMicros;
      projectedMonthMicros: UsdMicros;
      budgetBurn?: number;
      projectedBudgetBurn?: number;
      withoutUsage?: ServiceWithoutUsage[];
      /** The team's batch jobs (in its figures, as in `GET /teams/:team/cost`); absent when none held GPUs. */
      batchJobs?: BatchJobCostTotals;
    }
  >;
  recommendations: Recommendation[];
}

/**
 * The two leaderboards of the overview: `cost` ranks every current service (most month-to-date allocation first),
 * `waste` the services with an idle figure (most idle allocation first).
 *
 * @public
 */
export const OVERVIEW_LEADERBOARDS = ['cost', 'waste'] as const;

/**
 * One of {@link OVERVIEW_LEADERBOARDS}.
 *
 * @public
 */
export type OverviewLeaderboard = (typeof OVERVIEW_LEADERBOARDS)[number];

/**
 * What a leaderboard page can be sorted by (`GET /overview/services?orderBy=`): month-to-date or projected
 * allocation, idle cost over the window, cost per 1,000 tokens, utilisation, peak memory, or the service's name.
 * Services without the figure come last whichever the order; ties go by name, then id.
 *
 * @public
 */
export const OVERVIEW_SERVICE_ORDER_BY = [
  'monthToDate',
  'projectedMonth',
  'idle',
  'costPerThousandTokens',
  'utilisation',
  'peakMemory',
  'name',
] as const;

/**
 * One of {@link OVERVIEW_SERVICE_ORDER_BY}.
 *
 * @public
 */
export type OverviewServiceOrderBy = (typeof OVERVIEW_SERVICE_ORDER_BY)[number];

/**
 * A service on a leaderboard: its cost summary and the recommendation that saves most, when there is one.
 *
 * @public
 */
export interface OverviewServiceRow extends ServiceCostSummary {
  recommendation?: Recommendation;
}

/**
 * One page of a leaderboard (`GET /overview/services`, and the first page of each in `GET /overview`).
 *
 * @public
 */
export interface OverviewServicePage {
  items: OverviewServiceRow[];
  /** Present when more services match; pass it as `cursor` (same leaderboard, order and search) for the next page. */
  nextCursor?: string;
  /** Services on the leaderboard matching the search, on every page. */
  totalCount: number;
}

/**
 * Query of `GET /overview/services`: a page of one leaderboard of the overview.
 *
 * @public
 */
export interface OverviewServiceQuery {
  /** `cost` when omitted. */
  leaderboard?: OverviewLeaderboard;
  /** The leaderboard's own order when omitted: `monthToDate` for `cost`, `idle` for `waste`. */
  orderBy?: OverviewServiceOrderBy;
  /** `desc` when omitted. */
  order?: SortOrder;
  /** Part of the service's name or namespace, its team, tier, MIG profile or pool, case-insensitive. */
  search?: string;
  /** 1 to 200; 10 when omitted. */
  limit?: number;
  /** `nextCursor` of the previous page, read with the same leaderboard, order and search. */
  cursor?: string;
}

/**
 * A team of the overview: its cost, budget and burn; the services it has without a usage figure are counted, the
 * team's cost route (`GET /teams/:team/cost`) names them.
 *
 * @public
 */
export type OverviewTeamSummary = Omit<
  Overview['teams'][number],
  'withoutUsage'
> & {
  /** The team's services in its totals without a usage figure. */
  withoutUsageCount: number;
};

/**
 * The governance page's overview (`GET /overview?window=`): totals over every service, per team and per pool, and the
 * first page of each leaderboard; its size does not grow with the services (the rest of each leaderboard is paged by
 * `GET /overview/services`). Computed from the same {@link Overview} with a constant number of PromQL queries.
 *
 * @public
 */
export interface OverviewSummary
  extends Omit<
    Overview,
    'services' | 'withoutUsage' | 'teams' | 'recommendations'
  > {
  /** Current services in the totals' overview (every one of them, not only the leaderboards' pages). */
  serviceCount: number;
  /** Services in the totals without a usage figure, counted. */
  withoutUsageCount: number;
  /** The first {@link OVERVIEW_WITHOUT_USAGE_NAMED} of them by name (every one when fewer). */
  withoutUsage?: ServiceWithoutUsage[];
  teams: OverviewTeamSummary[];
  /** Recommendations over every current service, counted (each service's best is on its leaderboard row). */
  recommendationCount: number;
  /** The first page of each leaderboard, in its own order, of `top` rows (10 unless asked). */
  leaderboards: Record<OverviewLeaderboard, OverviewServicePage>;
}

/**
 * How many services without a usage figure {@link OverviewSummary.withoutUsage} names.
 *
 * @public
 */
export const OVERVIEW_WITHOUT_USAGE_NAMED = 20;
