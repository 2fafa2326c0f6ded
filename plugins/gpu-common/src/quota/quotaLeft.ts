import { TeamQuotaView } from '../api/governance';
import { UsdMicros } from '../cost/money';
import { gpuEquivalentsOf, gpuUnitsOf } from '../tiers/gpuUnits';
import { budgetFit, quotaFit } from './allowanceFit';

/**
 * What is left of a team's quota: per pool of its quota record, the GPU-equivalents the quota rule ({@link quotaFit})
 * leaves free after what the team's services hold, and what {@link budgetFit} leaves of its monthly budget. Never
 * below 0.
 *
 * @public
 */
export interface TeamQuotaLeft {
  gpuEquivalents: Record<string, number>;
  monthlyBudgetMicros: UsdMicros;
}

/**
 * {@link TeamQuotaLeft} of a quota as `GET /api/gpu/quotas` reads it.
 *
 * @public
 */
export function teamQuotaLeft(quota: TeamQuotaView): TeamQuotaLeft {
  return {
    gpuEquivalents: Object.fromEntries(
      Object.entries(quota.pools).map(([pool, nominal]) => [
        pool,
        gpuEquivalentsOf(
          quotaFit(
            gpuUnitsOf(nominal, `quota of pool ${pool}`),
            gpuUnitsOf(
              quota.reservedGpuEquivalents[pool] ?? 0,
              `held on pool ${pool}`,
            ),
            0,
          ).free,
        ),
      ]),
    ),
    monthlyBudgetMicros: budgetFit(
      quota.monthlyBudgetMicros,
      quota.reservedMonthlyCostMicros,
      0,
    ).free,
  };
}
