import { ApprovalOverage } from '../api/types';
import { formatUsd } from '../cost/formatUsd';
import { UsdMicros } from '../cost/money';
import { EnvironmentPolicy, Platform, Pool } from '../platform/types';
import { formatGpuUnits, GPU_UNITS_PER_EQUIVALENT } from '../tiers/gpuUnits';
import { poolMigSliceWeights } from '../tiers/migSliceWeights';
import { isProductionEnvironment } from './environmentPreference';

/**
 * Approval reason code of a production service on spot capacity.
 *
 * @public
 */
export const SPOT_IN_PRODUCTION = 'spot-in-production';

/**
 * Approval reason code of a request whose month-to-date spend plus its projection for the rest of the calendar month
 * is above the team's monthly budget.
 *
 * @public
 */
export const OVER_BUDGET_THIS_MONTH = 'over-budget-this-month';

/**
 * Why a service of `environment` on `pool` needs an approver because the pool is spot capacity in production;
 * undefined when it does not (not production, or on-demand).
 *
 * @public
 */
export function spotInProductionReason(
  environment: Pick<EnvironmentPolicy, 'name' | 'podDisruptionBudget'>,
  pool: Pick<Pool, 'name' | 'capacityType'>,
): string | undefined {
  if (pool.capacityType !== 'spot' || !isProductionEnvironment(environment)) {
    return undefined;
  }
  return (
    `Pool ${pool.name} is spot capacity, which can be reclaimed with two minutes' notice: wrong for production ` +
    `inference in ${environment.name}; an approver must accept that risk, or choose an on-demand pool`
  );
}

/**
 * A team's spend in the current calendar month (UTC), from the ledger at the pools' prices.
 *
 * @public
 */
export interface MonthSpend {
  /** The month, `yyyy-MM`. */
  month: string;
  /** Allocation cost of every reservation of the team held since the start of the month, until now. */
  monthToDate: UsdMicros;
  /** Projected cost of what the team holds now, from now until the end of the month. */
  heldRestOfMonth: UsdMicros;
  /** Seconds from now until the end of the month. */
  secondsLeft: number;
}

/**
 * Why a request is over the monthly budget on month-to-date spend; undefined when month-to-date spend, what the team
 * holds and the request, projected to the end of the month, stay within it.
 *
 * @param requestRestOfMonth - the request's cost from now until the end of the month
 * @public
 */
export function monthBudgetReason(options: {
  team: string;
  monthlyBudget: UsdMicros;
  spend: MonthSpend;
  requestRestOfMonth: UsdMicros;
}): string | undefined {
  const { team, monthlyBudget, spend, requestRestOfMonth } = options;
  const projected =
    spend.monthToDate + spend.heldRestOfMonth + requestRestOfMonth;
  if (projected <= monthlyBudget) {
    return undefined;
  }
  return `Team ${team} has spent ${formatUsd(spend.monthToDate)} in ${
    spend.month
  }; with what it holds (${formatUsd(
    spend.heldRestOfMonth,
  )}) and this request (${formatUsd(
    requestRestOfMonth,
  )}) until the end of the month it would spend ${formatUsd(
    projected,
  )}, above its ${formatUsd(monthlyBudget)} monthly budget`;
}

/**
 * Instances of one MIG profile a MIG pool holds.
 *
 * @public
 */
export interface MigSlots {
  /** Instances of the profile on one GPU (the pool's layout). */
  perGpu: number;
  /** Instances on the whole pool: nodes x GPUs per node x per GPU. */
  instances: number;
  /** GPU units of one instance: its weight in the layout (`migSliceWeights`). */
  gpuUnits: number;
  /** `gpuUnits` / 5040, for display. */
  gpuShare: number;
}

/**
 * The physical capacity of a pool at its largest (`maxNodes`).
 *
 * @public
 */
export interface PoolCapacity {
  pool: string;
  nodes: number;
  gpusPerNode: number;
  /**
   * GPU-equivalents the pool holds at most: nodes x GPUs per node for whole-GPU, MPS and time-sliced pools (R shares
   * of 1/R per GPU); for a MIG pool, the GPU-equivalents of its layout's slots (`gpuUnits` / 5040).
   */
  gpuEquivalents: number;
  /** GPU units the pool's slots hold: nodes x GPUs per node x (5040 - stranded per GPU). */
  gpuUnits: number;
  /** GPU units per GPU the MIG layout leaves unused (`migSliceWeights`); 0 for other pools. */
  strandedUnitsPerGpu: number;
  /** MIG pools: the slots of each profile of the layout. */
  migSlots?: Record<string, MigSlots>;
}

/**
 * The physical capacity of `pool`: nodes x GPUs per node, and for a MIG pool the slots of its layout.
 *
 * @public
 */
export function poolCapacity(
  platform: Pick<Platform, 'gpuModels'>,
  pool: Pool,
): PoolCapacity {
  const gpus = pool.maxNodes * pool.gpusPerNode;
  const base = {
    pool: pool.name,
    nodes: pool.maxNodes,
    gpusPerNode: pool.gpusPerNode,
  };
  if (pool.sharing.type !== 'mig') {
    return {
      ...base,
      gpuEquivalents: gpus,
      gpuUnits: gpus * GPU_UNITS_PER_EQUIVALENT,
      strandedUnitsPerGpu: 0,
    };
  }
  const gpu = Object.hasOwn(platform.gpuModels, pool.gpuModel)
    ? platform.gpuModels[pool.gpuModel]
    : undefined;
  const migSlots: Record<string, MigSlots> = {};
  if (!gpu) {
    return {
      ...base,
      gpuEquivalents: 0,
      gpuUnits: 0,
      strandedUnitsPerGpu: 0,
      migSlots,
    };
  }
  const weights = poolMigSliceWeights(gpu, pool.sharing);
  for (const [name, gpuUnits] of Object.entries(weights.unitsByProfile)) {
    const perGpu = pool.sharing.layout[name];
    migSlots[name] = {
      perGpu,
      instances: gpus * perGpu,
      gpuUnits,
      gpuShare: gpuUnits / GPU_UNITS_PER_EQUIVALENT,
    };
  }
  const gpuUnits =
    gpus * (GPU_UNITS_PER_EQUIVALENT - weights.strandedUnitsPerGpu);
  return {
    ...base,
    gpuEquivalents: gpuUnits / GPU_UNITS_PER_EQUIVALENT,
    gpuUnits,
    strandedUnitsPerGpu: weights.strandedUnitsPerGpu,
    migSlots,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The capacity in words, e.g. `8 GPUs (1 node x 8 GPUs)`, or for one MIG profile
 * `16 1g.10gb slots (1 node x 8 GPUs x 2 per GPU)`.
 *
 * @public
 */
export function describePoolCapacity(
  capacity: PoolCapacity,
  migProfile?: string,
): string {
  const shape = `${plural(capacity.nodes, 'node')} x ${plural(
    capacity.gpusPerNode,
    'GPU',
  )}`;
  const slots = migProfile ? capacity.migSlots?.[migProfile] : undefined;
  if (migProfile) {
    return `${slots?.instances ?? 0} ${migProfile} slots (${shape} x ${
      slots?.perGpu ?? 0
    } per GPU)`;
  }
  if (capacity.migSlots) {
    return `${formatShare(
      capacity.gpuEquivalents,
    )} GPU-equivalents of MIG slots (${shape})`;
  }
  return `${plural(capacity.gpuEquivalents, 'GPU')} (${shape})`;
}

/**
 * Why a request can never run on its pool, whatever else runs there: it alone needs more than the pool's physical
 * capacity (GPU units, or slots of its MIG profile). Undefined when it fits an empty pool.
 *
 * @param request - GPU units of all replicas and, on a MIG pool, the profile of each replica
 * @public
 */
export function physicalCapacityShortfall(
  capacity: PoolCapacity,
  request: { gpuUnits: number; migProfile?: string },
): string | undefined {
  if (capacity.migSlots) {
    const slots = request.migProfile
      ? capacity.migSlots[request.migProfile]
      : undefined;
    if (!request.migProfile) {
      return `Pool ${capacity.pool} is a MIG pool: a request on it must name a MIG profile of its layout`;
    }
    if (!slots) {
      return `Pool ${capacity.pool} has no ${
        request.migProfile
      } slots in its MIG layout; its physical capacity is ${describePoolCapacity(
        capacity,
      )}`;
    }
    const instances = Math.ceil(request.gpuUnits / slots.gpuUnits);
    if (instances <= slots.instances) return undefined;
    return (
      `The request needs ${instances} ${request.migProfile} slices of pool ${capacity.pool}, more than its ` +
      `physical capacity of ${describePoolCapacity(
        capacity,
        request.migProfile,
      )}; ask for fewer replicas or another pool`
    );
  }
  if (request.gpuUnits <= capacity.gpuUnits) {
    return undefined;
  }
  return `The request needs ${formatGpuUnits(
    request.gpuUnits,
  )} GPU-equivalents of pool ${
    capacity.pool
  }, more than its physical capacity of ${describePoolCapacity(
    capacity,
  )}; ask for fewer replicas or another pool`;
}

/**
 * An approval's overage in words, e.g.
 * `4 GPU-equivalents over quota in pool h100 ($16,071.68 a month); $16,071.68 a month over budget`; empty when it is within quota and budget.
 *
 * @public
 */
export function describeOverage(overage: ApprovalOverage): string {
  const parts: string[] = [];
  for (const pool of overage.pools) {
    if (pool.overGpuEquivalents > 0) {
      parts.push(
        `${formatShare(pool.overGpuEquivalents)} GPU-equivalent${
          pool.overGpuEquivalents === 1 ? '' : 's'
        } over quota in pool ${pool.pool} (${formatUsd(
          pool.overMonthlyCostMicros,
        )} a month)`,
      );
    }
  }
  const budget = overage.budget;
  if (budget.overMonthlyCostMicros > 0) {
    parts.push(
      `${formatUsd(budget.overMonthlyCostMicros)} a month over budget`,
    );
  }
  if (budget.overProjectedMicros > 0) {
    parts.push(
      `${formatUsd(budget.overProjectedMicros)} over budget in ${
        budget.month
      } (month-to-date ${formatUsd(
        budget.monthToDateMicros,
      )}, projected ${formatUsd(budget.projectedMonthMicros)} of ${formatUsd(
        budget.monthlyBudgetMicros,
      )})`,
    );
  }
  return parts.join('; ');
}

function formatShare(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
