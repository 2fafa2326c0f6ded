import { Knex } from 'knex';
import { PoolQuotaRow, TeamQuotaRow, toIso } from './rows';
import { QuotaRecord } from './types';
import { fromGpuUnits, readInteger } from './units';

/** A team's quota with what is held against it; undefined when it has none. */
export async function readQuota(
  db: Knex | Knex.Transaction,
  team: string,
): Promise<QuotaRecord | undefined> {
  const teamRow = await db<TeamQuotaRow>('team_quotas').where({ team }).first();
  if (!teamRow) {
    return undefined;
  }
  const poolRows = await db<PoolQuotaRow>('pool_quotas')
    .where({ team })
    .orderBy('pool');
  const heldByPool: Array<{ pool: string; units: unknown; cost: unknown }> =
    await db('reservations')
      .where({ team, state: 'held' })
      .groupBy('pool')
      .orderBy('pool')
      .select('pool')
      .sum({ units: 'gpu_units', cost: 'monthly_cost_micros' });
  return {
    team,
    pools: Object.fromEntries(
      poolRows.map(r => [
        r.pool,
        fromGpuUnits(readInteger(r.nominal_gpu_units)),
      ]),
    ),
    monthlyBudgetMicros: readInteger(teamRow.monthly_budget_micros),
    reservedGpuEquivalents: Object.fromEntries(
      heldByPool.map(r => [r.pool, fromGpuUnits(readInteger(r.units))]),
    ),
    reservedMonthlyCostMicros: heldByPool.reduce(
      (sum, r) => sum + readInteger(r.cost),
      0,
    ),
    updatedBy: teamRow.updated_by,
    updatedAt: toIso(teamRow.updated_at),
  };
}
