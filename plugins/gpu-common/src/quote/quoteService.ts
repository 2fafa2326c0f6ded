import { formatUsd } from '../cost/formatUsd';
import {
  heldUnitsCost,
  PoolPrice,
  poolPrices,
  unitsCost,
} from '../cost/poolPrices';
import {
  capacityUtilisation,
  costPerThousandTokensAtRate,
  tokenPrices,
} from '../cost/tokenCost';
import { GpuDomainError, listAllowed } from '../errors';
import { environmentAllowsCluster } from '../platform/clusterPlacement';
import {
  checkpointFor,
  defaultDtypeFor,
  DTYPE_PRECISION_ORDER,
  unavailableDtypeReason,
} from '../platform/checkpoints';
import { findEnvironment, findModel, findTeam } from '../platform/lookups';
import {
  EnvironmentPolicy,
  ModelSpec,
  Platform,
  Runtime,
  TeamQuota,
} from '../platform/types';
import { budgetFit, quotaFit } from '../quota/allowanceFit';
import {
  allowanceFromConfig,
  allowanceUnits,
  TeamAllowance,
} from '../quota/teamAllowance';
import {
  formatGpuUnits,
  GPU_UNITS_PER_EQUIVALENT,
  gpuEquivalentsOf,
} from '../tiers/gpuUnits';
import { ServiceRequest } from '../service/types';
import { FitResult, fitSlices } from '../sizing/fitSlices';
import {
  environmentPreference,
  isolationRank,
  isProductionEnvironment,
} from './environmentPreference';
import { dedicatedGpuLimitReason } from './dedicatedGpuLimit';
import {
  monthBudgetReason,
  poolCapacity,
  spotInProductionReason,
} from './governance';
import {
  PoolCapacityFit,
  poolCapacityFit,
  poolCapacityReason,
} from './poolCapacityFit';
import { MeasuredCapacity, QuoteOptions } from './measuredCapacity';
import { replicaCapacity } from './replicaCapacity';
import {
  AutoscaledReplicasPolicy,
  DEFAULT_AUTOSCALED_REPLICAS_POLICY,
  OptionScaling,
} from './autoscaledReplicas';
import {
  DtypeOption,
  OptionCost,
  OptionThroughput,
  PolicyVerdict,
  QuotaFit,
  Quote,
  QuoteOption,
  QuoteRecommendation,
  TeamUsage,
  UnavailableOption,
} from './types';

const VERDICT_RANK: Record<PolicyVerdict, number> = {
  allowed: 0,
  'needs-approval': 1,
  forbidden: 2,
};

interface QuoteContext {
  platform: Platform;
  request: ServiceRequest;
  usage: TeamUsage;
  environment: EnvironmentPolicy;
  team: TeamQuota;
  allowance: TeamAllowance;
  prices: ReadonlyMap<string, PoolPrice>;
  measuredCapacities: readonly MeasuredCapacity[];
  poolCapacity?: QuoteOptions['poolCapacity'];
  /** The replicas every option reserves and prices (the same on every slice). */
  replicas: number;
  scaling: OptionScaling;
}

/**
 * Quotes a service request: every slice the model fits (all tiers and pools, or the request's tier and pool), each
 * with its memory headroom, monthly cost, cost per 1,000 output tokens, per 1 million input and output tokens and per
 * request (at the request's expected tokens/s, else at the capacity: the request's measured tokens/s per replica, else
 * the bandwidth estimate, labelled by `throughput.capacityBasis`), the team's quota and budget after it, and a policy verdict with reasons. Slices the model
 * does not fit are listed in `unavailable`. A tier the environment forbids is quoted as `forbidden`, not thrown.
 * Every dtype of the model on the runtime is listed in `dtypes` with its checkpoint or why there is none; a request in
 * a dtype without a checkpoint gets no options (its entry in `dtypes` says why), not an error.
 *
 * An autoscaled request is reserved and priced at its maximum replicas or at its minimum (at least 1) with the burst
 * above it, as `extra.autoscaledReplicas` (the platform's `gpu.admission.autoscaledReplicas`, default `maximum`)
 * decides; each option's `scaling` says which, and `replicas`, `gpuEquivalents`, cost, quota, budget and the
 * capacity behind the cost per 1,000 tokens are those of the replicas reserved.
 *
 * Quota and budget are weighed in integers (GPU units, micro-dollars) against `allowance`, the team's stored quota
 * when the caller has one, else what app-config gives the team (`allowanceFromConfig`), by the one quota rule
 * (`quotaFit`, `budgetFit`) admission also uses.
 *
 * Pure and synchronous; it runs on every keystroke of the service form.
 *
 * @throws GpuDomainError `UNKNOWN_TEAM`, `UNKNOWN_ENVIRONMENT`, `UNKNOWN_MODEL` or `UNKNOWN_POOL` for names the
 *   platform does not have, `OUT_OF_RANGE` for negative replicas, demand or usage, an autoscaling range that is not one, or an allowance of another team.
 * @public
 */
export function quoteService(
  platform: Platform,
  request: ServiceRequest,
  usage: TeamUsage,
  allowance?: TeamAllowance,
  extra: QuoteOptions = {},
): Quote {
  checkNumbers(request, usage);
  const team = findTeam(platform, request.team);
  if (allowance && allowance.team !== team.name) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `The allowance given is team ${allowance.team}'s; the request is team ${team.name}'s`,
    );
  }
  const model = findModel(platform, request.model);
  const dtype = request.dtype ?? defaultDtypeFor(model, request.runtime);
  const context: QuoteContext = {
    platform,
    request: { ...request, dtype },
    usage,
    environment: findEnvironment(platform, request.environment),
    team,
    allowance: allowance ?? allowanceFromConfig(team),
    prices: poolPrices(platform),
    measuredCapacities: extra.measuredCapacities ?? [],
    poolCapacity: extra.poolCapacity,
    ...replicasToPrice(
      request,
      extra.autoscaledReplicas ?? DEFAULT_AUTOSCALED_REPLICAS_POLICY,
    ),
  };

  const dtypes = dtypeOptions(model, request.runtime);
  const servable = checkpointFor(model, dtype, request.runtime) !== undefined;

  const options: QuoteOption[] = [];
  const unavailable: UnavailableOption[] = [];
  const fits = servable ? fitSlices(platform, context.request) : [];
  for (const fit of fits) {
    if (fit.fits) {
      options.push(quoteOption(context, fit));
    } else {
      unavailable.push({
        slice: fit.slice,
        requiredBytes: fit.requiredBytes,
        availableBytes: fit.availableBytes,
        reason: fit.reason ?? 'does not fit',
      });
    }
  }
  options.sort(compareOptions);

  return {
    service: request.name,
    team: context.team.name,
    environment: context.environment.name,
    dtype,
    dtypes,
    options,
    unavailable,
    ...recommendationOf(options, isProductionEnvironment(context.environment)),
  };
}

/** Each dtype on the runtime: the repository or tag it loads, or why there is none. */
function dtypeOptions(model: ModelSpec, runtime: Runtime): DtypeOption[] {
  return DTYPE_PRECISION_ORDER.map(dtype => {
    const checkpoint = checkpointFor(model, dtype, runtime);
    if (!checkpoint) {
      return {
        dtype,
        available: false,
        reason: unavailableDtypeReason(model, dtype, runtime),
      };
    }
    return {
      dtype,
      available: true,
      checkpoint:
        checkpoint.runtime === 'vllm'
          ? checkpoint.huggingFaceId
          : checkpoint.tag,
      format: checkpoint.format,
    };
  });
}

function quoteOption(context: QuoteContext, fit: FitResult): QuoteOption {
  const { environment, team, usage, allowance } = context;
  const slice = fit.slice;
  const price = context.prices.get(slice.pool)!;
  const { replicas, scaling } = context;
  const gpuUnits = slice.gpuUnits * replicas;
  const burstUnits = slice.gpuUnits * scaling.burstReplicas;

  const cost: OptionCost = {
    gpuHour: price.gpuHour,
    hourly: unitsCost(price, gpuUnits, 1),
    monthly: unitsCost(price, gpuUnits, context.platform.hoursPerMonth),
    ...(burstUnits > 0 && {
      burstMonthly: unitsCost(
        price,
        burstUnits,
        context.platform.hoursPerMonth,
      ),
    }),
  };
  if (price.onDemand) {
    cost.spotSavingMonthly =
      unitsCost(price.onDemand, gpuUnits, context.platform.hoursPerMonth) -
      cost.monthly;
  }
  const throughput = quoteThroughput(context, fit, cost);

  const nominalUnits = allowanceUnits(allowance, slice.pool);
  const heldUnits = Object.hasOwn(usage.reservedGpuUnits, slice.pool)
    ? usage.reservedGpuUnits[slice.pool]
    : 0;
  const quotaUnits = quotaFit(nominalUnits, heldUnits, gpuUnits);
  const quota: QuotaFit = {
    pool: slice.pool,
    nominal: gpuEquivalentsOf(nominalUnits),
    used: gpuEquivalentsOf(heldUnits),
    requested: gpuEquivalentsOf(gpuUnits),
    remaining: gpuEquivalentsOf(quotaUnits.remaining),
    fits: quotaUnits.fits,
    ...(scaling.basis === 'minimum-plus-burst' && {
      burstReplicasWithinQuota: Math.min(
        scaling.burstReplicas,
        Math.floor(Math.max(quotaUnits.remaining, 0) / slice.gpuUnits),
      ),
    }),
  };

  const monthlyBudget = allowance.monthlyBudgetMicros;
  const budgetMicros = budgetFit(
    monthlyBudget,
    usage.committedMonthlyCost,
    cost.monthly,
  );
  const budget = {
    monthlyBudget,
    committed: usage.committedMonthlyCost,
    requested: cost.monthly,
    remaining: budgetMicros.remaining,
    fits: budgetMicros.fits,
  };

  const reasons: string[] = [];
  const tierAllowed = environment.allowedTiers.includes(slice.tier);
  if (!tierAllowed) {
    reasons.push(
      `Environment ${environment.name} does not allow the ${
        slice.tier
      } tier; allowed: ${listAllowed(environment.allowedTiers)}`,
    );
  }
  const dedicatedReason = dedicatedGpuLimitReason(environment, slice, replicas);
  if (dedicatedReason) {
    reasons.push(dedicatedReason);
  }
  if (!quota.fits) {
    reasons.push(
      `Needs ${formatGpuUnits(gpuUnits)} GPU-equivalent${
        gpuUnits === GPU_UNITS_PER_EQUIVALENT ? '' : 's'
      } of pool ${slice.pool}; team ${team.name} has ${formatGpuUnits(
        quotaUnits.free,
      )} of ${formatGpuUnits(nominalUnits)} left`,
    );
  }
  if (!budget.fits) {
    reasons.push(
      `Costs ${formatUsd(cost.monthly)} a month; team ${
        team.name
      } has ${formatUsd(budgetMicros.free)} of its ${formatUsd(
        monthlyBudget,
      )} monthly budget left`,
    );
  }
  if (usage.month) {
    const monthReason = monthBudgetReason({
      team: team.name,
      monthlyBudget,
      spend: usage.month,
      requestRestOfMonth: heldUnitsCost(
        price,
        gpuUnits,
        usage.month.secondsLeft,
      ),
    });
    if (monthReason) reasons.push(monthReason);
  }
  const cluster = price.pool.cluster;
  const clusterAllowed = environmentAllowsCluster(environment, cluster);
  if (!clusterAllowed) {
    reasons.push(
      `Environment ${
        environment.name
      } may not run on cluster ${cluster} (pool ${
        slice.pool
      }); allowed clusters: ${listAllowed(environment.clusters ?? [])}`,
    );
  }
  const spotReason = spotInProductionReason(environment, price.pool);
  if (spotReason) {
    reasons.push(spotReason);
  }
  const capacity = capacityFitOf(context, slice, gpuUnits);
  const capacityReason =
    capacity &&
    poolCapacityReason(capacity, context.poolCapacity!.whenOverPoolCapacity);
  if (capacityReason) {
    reasons.push(capacityReason);
  }
  let verdict: PolicyVerdict = 'allowed';
  if (
    !tierAllowed ||
    !clusterAllowed ||
    (capacityReason && context.poolCapacity!.whenOverPoolCapacity === 'refuse')
  ) {
    verdict = 'forbidden';
  } else if (reasons.length > 0) {
    verdict = 'needs-approval';
  }

  return {
    slice,
    ...(cluster !== undefined && { cluster }),
    memory: fit.memory,
    availableBytes: fit.availableBytes,
    requiredBytes: fit.requiredBytes,
    headroomBytes: fit.headroomBytes,
    kvCacheBudgetBytes: fit.kvCacheBudgetBytes,
    fullLengthSequences: fit.fullLengthSequences,
    capacityType: price.pool.capacityType,
    replicas,
    scaling,
    gpuEquivalents: quota.requested,
    cost,
    throughput,
    quota,
    budget,
    ...(capacity ? { poolCapacity: capacity } : {}),
    verdict,
    reasons,
  };
}

/** The option against what every team holds on its pool, when the caller gave those figures. */
function capacityFitOf(
  context: QuoteContext,
  slice: FitResult['slice'],
  gpuUnits: number,
): PoolCapacityFit | undefined {
  if (!context.poolCapacity) return undefined;
  const pool = context.platform.pools.find(p => p.name === slice.pool);
  if (!pool) return undefined;
  const held = Object.hasOwn(context.poolCapacity.held, slice.pool)
    ? context.poolCapacity.held[slice.pool]
    : { units: 0, unitsByProfile: {} };
  return poolCapacityFit(poolCapacity(context.platform, pool), held, {
    gpuUnits,
    migProfile: slice.migProfile,
  });
}

function quoteThroughput(
  context: QuoteContext,
  fit: FitResult,
  cost: OptionCost,
): OptionThroughput {
  const { request, replicas } = context;
  const perReplica = replicaCapacity(
    context.platform,
    request,
    fit,
    context.measuredCapacities,
  );
  const capacity =
    perReplica !== undefined && replicas > 0
      ? perReplica.tokensPerSecond * replicas
      : undefined;
  const capacityBasis: Pick<OptionThroughput, 'capacityBasis' | 'measuredBy'> =
    capacity === undefined
      ? {}
      : {
          capacityBasis: perReplica!.basis,
          ...(perReplica!.measuredBy
            ? { measuredBy: perReplica!.measuredBy }
            : {}),
        };
  const demand = request.expectedTokensPerSecond;
  if (demand === undefined) {
    if (capacity !== undefined) {
      cost.idealCostPerThousandTokens = costPerThousandTokensAtRate(
        cost.hourly,
        capacity,
      );
      cost.costPerThousandTokens = cost.idealCostPerThousandTokens;
      priceTokens(cost, capacity);
    }
    return {
      basis: 'estimated',
      ...capacityBasis,
      capacityTokensPerSecond: capacity,
    };
  }
  if (capacity === undefined) {
    cost.costPerThousandTokens = costPerThousandTokensAtRate(
      cost.hourly,
      demand,
    );
    priceTokens(cost, demand);
    return { basis: 'stated', demandTokensPerSecond: demand };
  }
  const { utilisation, costFactor, saturated } = capacityUtilisation(
    capacity,
    demand,
  );
  const served = Math.min(demand, capacity);
  cost.idealCostPerThousandTokens = costPerThousandTokensAtRate(
    cost.hourly,
    capacity,
  );
  cost.costPerThousandTokens = costPerThousandTokensAtRate(cost.hourly, served);
  priceTokens(cost, served);
  return {
    basis: 'stated',
    ...capacityBasis,
    capacityTokensPerSecond: capacity,
    demandTokensPerSecond: demand,
    utilisation,
    costFactor,
    saturated,
  };
}

/** Per-request and per-million input/output prices at the served output tokens/s (see `tokenPrices`). */
function priceTokens(cost: OptionCost, outputTokensPerSecond: number): void {
  const prices = tokenPrices(cost.hourly, outputTokensPerSecond);
  if (prices) {
    cost.costPerMillionInputTokens = prices.costPerMillionInputTokens;
    cost.costPerMillionOutputTokens = prices.costPerMillionOutputTokens;
    cost.costPerRequest = prices.costPerRequest;
  }
}

function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}

function compareOptions(a: QuoteOption, b: QuoteOption): number {
  return (
    VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] ||
    a.cost.monthly - b.cost.monthly ||
    b.headroomBytes - a.headroomBytes ||
    isolationRank(a.slice.tier) - isolationRank(b.slice.tier) ||
    compareStrings(a.slice.pool, b.slice.pool) ||
    compareStrings(a.slice.migProfile ?? '', b.slice.migProfile ?? '') ||
    a.slice.gpusPerReplica - b.slice.gpusPerReplica
  );
}

/**
 * Recommendation order: verdict (policy, quota, budget), the environment's preference, monthly cost, isolation, the
 * pool's free capacity, headroom.
 */
function compareForRecommendation(
  a: QuoteOption,
  b: QuoteOption,
  production: boolean,
): number {
  return (
    VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] ||
    environmentPreference(production, a.slice.tier, a.capacityType) -
      environmentPreference(production, b.slice.tier, b.capacityType) ||
    a.cost.monthly - b.cost.monthly ||
    isolationRank(a.slice.tier) - isolationRank(b.slice.tier) ||
    freeCapacity(b) - freeCapacity(a) ||
    b.headroomBytes - a.headroomBytes
  );
}

/** The option's pool's free GPU-equivalents after the request, when the quote weighed them (else 0: no preference). */
function freeCapacity(option: QuoteOption): number {
  return option.poolCapacity
    ? option.poolCapacity.freeGpuEquivalents -
        option.poolCapacity.requestedGpuEquivalents
    : 0;
}

/** The recommended option and what decided it (see {@link QuoteRecommendationReason}). */
function recommendationOf(
  options: readonly QuoteOption[],
  production: boolean,
): Pick<Quote, 'recommended' | 'recommendation'> {
  const best = recommend(options, production);
  if (!best) {
    return {};
  }
  const where = `${best.slice.tier} on pool ${best.slice.pool}${
    best.cluster ? ` (cluster ${best.cluster})` : ''
  }`;
  const allowed = options.filter(o => o.verdict === 'allowed');
  const others = allowed.filter(o => o !== best);
  let recommendation: QuoteRecommendation;
  if (best.verdict !== 'allowed') {
    recommendation = {
      reason: 'needs-approval',
      message: `No option is allowed at once; ${where} is the best an approver can grant`,
    };
  } else if (allowed.length === 1) {
    recommendation =
      options.filter(o => o.verdict !== 'forbidden').length === 1
        ? { reason: 'only-option', message: `${where} is the only option` }
        : {
            reason: 'allowed-by-policy',
            message: `${where} is the only option policy, quota and budget allow at once`,
          };
  } else if (others.some(o => o.cost.monthly < best.cost.monthly)) {
    recommendation = {
      reason: 'environment-preference',
      message: `${where}: the environment prefers on-demand dedicated or MIG capacity to cheaper options`,
    };
  } else if (
    others.some(
      o =>
        o.cost.monthly === best.cost.monthly &&
        isolationRank(o.slice.tier) === isolationRank(best.slice.tier) &&
        o.slice.pool !== best.slice.pool &&
        freeCapacity(o) < freeCapacity(best),
    )
  ) {
    recommendation = {
      reason: 'most-free-capacity',
      message: `${where}: as cheap as other allowed options, on the pool with the most free capacity`,
    };
  } else {
    recommendation = {
      reason: 'lowest-price',
      message: `${where} is the cheapest option allowed at once`,
    };
  }
  return { recommended: best, recommendation };
}

function recommend(
  options: readonly QuoteOption[],
  production: boolean,
): QuoteOption | undefined {
  let best: QuoteOption | undefined;
  for (const option of options) {
    if (
      option.verdict !== 'forbidden' &&
      (!best || compareForRecommendation(option, best, production) < 0)
    ) {
      best = option;
    }
  }
  return best;
}

function checkNumbers(request: ServiceRequest, usage: TeamUsage): void {
  if (!Number.isInteger(request.replicas) || request.replicas < 0) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `replicas ${request.replicas} is not a whole number of 0 or more; allowed: 0, 1, 2, ...`,
    );
  }
  const autoscaling = request.autoscaling;
  if (
    autoscaling &&
    !(
      Number.isInteger(autoscaling.minReplicas) &&
      Number.isInteger(autoscaling.maxReplicas) &&
      autoscaling.minReplicas >= 0 &&
      autoscaling.maxReplicas >= Math.max(autoscaling.minReplicas, 1)
    )
  ) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `autoscaling from ${autoscaling.minReplicas} to ${autoscaling.maxReplicas} replicas is not a range of whole numbers; allowed: minReplicas 0 or more, maxReplicas at least minReplicas and 1`,
    );
  }
  const demand = request.expectedTokensPerSecond;
  if (demand !== undefined && !(demand >= 0 && Number.isFinite(demand))) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `expectedTokensPerSecond ${demand} is not a finite number of 0 or more`,
    );
  }
  const measured = request.measuredTokensPerSecond;
  if (measured !== undefined && !(measured > 0 && Number.isFinite(measured))) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `measuredTokensPerSecond ${measured} is not a finite number above 0`,
    );
  }
  if (!Number.isSafeInteger(usage.committedMonthlyCost)) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `committedMonthlyCost ${usage.committedMonthlyCost} is not an integer number of micro-dollars`,
    );
  }
  for (const [pool, reserved] of Object.entries(usage.reservedGpuUnits)) {
    if (!(Number.isSafeInteger(reserved) && reserved >= 0)) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `reservedGpuUnits of pool ${pool} is ${reserved}; allowed: a whole number of GPU units, 0 or more`,
      );
    }
  }
}

/** The replicas reserved and priced for a request under a policy, and the scaling that says so. */
function replicasToPrice(
  request: Pick<ServiceRequest, 'replicas' | 'autoscaling'>,
  policy: AutoscaledReplicasPolicy,
): { replicas: number; scaling: OptionScaling } {
  const autoscaling = request.autoscaling;
  if (!autoscaling) {
    return {
      replicas: request.replicas,
      scaling: { basis: 'fixed', burstReplicas: 0 },
    };
  }
  const { minReplicas, maxReplicas } = autoscaling;
  const replicas =
    policy === 'maximum' ? maxReplicas : Math.max(minReplicas, 1);
  return {
    replicas,
    scaling: {
      basis: policy,
      minReplicas,
      maxReplicas,
      burstReplicas: maxReplicas - replicas,
    },
  };
}
