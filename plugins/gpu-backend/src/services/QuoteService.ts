import {
  AutoscaledReplicasPolicy,
  DEFAULT_POOL_CAPACITY_POLICY,
  FitAndPriceOption,
  Platform,
  PoolCapacityPolicy,
  Quote,
  QuoteOption,
  quoteService,
  QuoteWithoutTeamFigures,
  ServiceRequest,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { CapacitySource } from '../usage/measuredCapacities';
import { GpuStore } from '../database';

/** Quotes requests against the platform and what the team already holds. */
export interface QuoteService {
  quote(request: ServiceRequest): Promise<Quote>;
  /** What admission does with a request beyond its pool's free capacity, as the quotes say. */
  readonly whenOverPoolCapacity?: PoolCapacityPolicy;
}

/** Quotes for callers who may not read the team's quota. */
export interface FitAndPriceQuotes {
  /**
   * The quote without the team's figures, for a caller who may not read the team's quota: each option's fit and
   * price, and a verdict by the platform's policy only (tier, dedicated GPU limit, spot in production), without its
   * `quota` and `budget`; `teamFiguresWithheld` says so. Reads nothing the team holds.
   */
  quoteFitAndPrice(request: ServiceRequest): Promise<QuoteWithoutTeamFigures>;
}

/**
 * An allowance no option exceeds: quoted against it, an option's verdict and reasons are the platform policy's alone.
 * Its figures never leave {@link FitAndPriceQuotes.quoteFitAndPrice}, which drops every option's quota and budget.
 */
function policyOnlyAllowance(platform: Platform, team: string): TeamAllowance {
  return {
    team,
    gpuUnits: Object.fromEntries(
      platform.pools.map(pool => [pool.name, Number.MAX_SAFE_INTEGER]),
    ),
    monthlyBudgetMicros: Number.MAX_SAFE_INTEGER,
  };
}

function withoutTeamFigures(option: QuoteOption): FitAndPriceOption {
  const { quota: _quota, budget: _budget, ...fitAndPrice } = option;
  return fitAndPrice;
}

/**
 * How old a team's quota snapshot may be when a quote uses it. Writes through this backend invalidate it at once;
 * writes by other replicas show after this long.
 */
export const QUOTE_SNAPSHOT_MAX_AGE_MS = 1000;

/**
 * Quotes with the domain model against the team's stored allowance (integer GPU units and micro-dollars, which
 * override app-config) and reservations. The form quotes on every change, many users at once, so quotes share a
 * snapshot of the team's quota (`GpuStore.getLedgerSnapshot`) instead of reading it each time; admission does not
 * depend on it: the store checks quota again in its transaction, by the same rule. So do budgets on this month's
 * spend (`GpuStore.getMonthSpendSnapshot`, cached the same way), and pool capacity against what every team holds
 * (`GpuStore.getPoolHeldSnapshot`, by gpu-common's `poolCapacityFit`, the rule admission applies). A team without a
 * stored quota is quoted against app-config's allowance.
 */
export function createQuoteService(options: {
  platform: Platform;
  store: GpuStore;
  /** Measured sustained tokens/s of running services by slice shape; quotes of the same shape use them. */
  capacities?: CapacitySource;
  /** What admission does with a request beyond its pool's free capacity; the quote says the same (default `approval`). */
  whenOverPoolCapacity?: PoolCapacityPolicy;
  /**
   * What an autoscaled request reserves and is priced at (`gpu.admission.autoscaledReplicas`, read once by
   * `readAutoscaledReplicasPolicy`): every quote, and so every reservation made from one, follows it.
   */
  autoscaledReplicas: AutoscaledReplicasPolicy;
}): QuoteService & FitAndPriceQuotes {
  const { platform, store, capacities, autoscaledReplicas } = options;
  const whenOverPoolCapacity =
    options.whenOverPoolCapacity ?? DEFAULT_POOL_CAPACITY_POLICY;
  return {
    whenOverPoolCapacity,
    async quote(request) {
      const [ledger, month, held, measuredCapacities] = await Promise.all([
        store.getLedgerSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
        store.getMonthSpendSnapshot(request.team, QUOTE_SNAPSHOT_MAX_AGE_MS),
        store.getPoolHeldSnapshot(QUOTE_SNAPSHOT_MAX_AGE_MS),
        capacities?.current() ?? [],
      ]);
      const poolCapacity = { held, whenOverPoolCapacity };
      if (!ledger) {
        return quoteService(
          platform,
          request,
          { reservedGpuUnits: {}, committedMonthlyCost: 0 },
          undefined,
          { measuredCapacities, poolCapacity, autoscaledReplicas },
        );
      }
      return quoteService(
        platform,
        request,
        {
          reservedGpuUnits: ledger.reservedGpuUnits,
          committedMonthlyCost: ledger.reservedMonthlyCostMicros,
          month,
        },
        ledger.allowance,
        { measuredCapacities, poolCapacity, autoscaledReplicas },
      );
    },
    async quoteFitAndPrice(request) {
      const quote = quoteService(
        platform,
        request,
        { reservedGpuUnits: {}, committedMonthlyCost: 0 },
        policyOnlyAllowance(platform, request.team),
        {
          measuredCapacities: (await capacities?.current()) ?? [],
          autoscaledReplicas,
        },
      );
      return {
        ...quote,
        options: quote.options.map(withoutTeamFigures),
        ...(quote.recommended
          ? { recommended: withoutTeamFigures(quote.recommended) }
          : {}),
        teamFiguresWithheld: `You may not read team ${quote.team}'s quota: the options show fit and price, without the team's quota, use and budget, and each verdict weighs the platform's policy only`,
      };
    },
  };
}
