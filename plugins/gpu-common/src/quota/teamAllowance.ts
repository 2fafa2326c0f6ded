import { parseUsd, UsdMicros } from '../cost/money';
import { TeamQuota } from '../platform/types';
import { gpuUnitsOf } from '../tiers/gpuUnits';

/**
 * A team's quota and budget as integers: what the quote, admission and the team's Kueue ClusterQueue all weigh
 * requests against. Parsed once from config (`allowanceFromConfig`) or read from the store (already integers).
 *
 * @public
 */
export interface TeamAllowance {
  team: string;
  /** Nominal GPU units (1/5040 GPU) per pool name; a pool not listed has no quota. */
  gpuUnits: Record<string, number>;
  /** Monthly budget in micro-dollars. */
  monthlyBudgetMicros: UsdMicros;
}

/**
 * The allowance app-config gives a team: its GPU-equivalent quota per pool in GPU units, its decimal monthly budget in
 * micro-dollars.
 *
 * @throws GpuDomainError `OUT_OF_RANGE` for a negative or non-finite quota; InputError for a budget that is not a
 *   decimal amount.
 * @public
 */
export function allowanceFromConfig(team: TeamQuota): TeamAllowance {
  return {
    team: team.name,
    gpuUnits: Object.fromEntries(
      Object.entries(team.gpuQuota).map(([pool, equivalents]) => [
        pool,
        gpuUnitsOf(
          equivalents,
          `gpu.teams ${team.name}: gpuQuota of pool ${pool}`,
        ),
      ]),
    ),
    monthlyBudgetMicros: parseUsd(team.monthlyBudget),
  };
}

/**
 * Nominal GPU units of `allowance` on `pool`; 0 when the pool is not listed.
 *
 * @public
 */
export function allowanceUnits(allowance: TeamAllowance, pool: string): number {
  return Object.hasOwn(allowance.gpuUnits, pool) ? allowance.gpuUnits[pool] : 0;
}
