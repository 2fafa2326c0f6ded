import { TeamAllowance } from '@internal/backstage-plugin-gpu-common';
import { QuotaRecord } from './types';
import { toGpuUnits } from './units';

/**
 * The allowance a stored quota gives its team: the integer GPU units per pool and the budget in micro-dollars the
 * store holds (`pools` are those units / 5040, so converting back is exact). What the quote and the Kueue renderer
 * weigh requests against.
 */
export function storedAllowance(quota: QuotaRecord): TeamAllowance {
  return {
    team: quota.team,
    gpuUnits: Object.fromEntries(
      Object.entries(quota.pools).map(([pool, equivalents]) => [
        pool,
        toGpuUnits(equivalents, `stored quota of pool '${pool}'`),
      ]),
    ),
    monthlyBudgetMicros: quota.monthlyBudgetMicros,
  };
}
