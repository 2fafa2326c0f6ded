import { InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { lockTeam } from './ledger';
import { PoolQuotaRow, TeamQuotaRow, toIso } from './rows';
import { QuotaRecord, QuotaSpec } from './types';
import { checkMicros, fromGpuUnits, readInteger, toGpuUnits } from './units';

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

/** Every team's quota, by team name. */
export async function listQuotas(db: Knex): Promise<QuotaRecord[]> {
  const teams = await db<TeamQuotaRow>('team_quotas')
    .select('team')
    .orderBy('team');
  const quotas = await Promise.all(
    teams.map(({ team }) => readQuota(db, team)),
  );
  return quotas.filter((q): q is QuotaRecord => q !== undefined);
}

/** A quota to store: checked budget and per-pool rows; a 400 for a bad amount. */
export function quotaRows(team: string, quota: QuotaSpec) {
  if (!team) {
    throw new InputError('team must be a non-empty team name');
  }
  const budget = checkMicros(quota.monthlyBudgetMicros, 'monthlyBudgetMicros');
  const pools = Object.entries(quota.pools ?? {}).map(([pool, amount]) => ({
    team,
    pool,
    nominal_gpu_units: toGpuUnits(amount, `quota of pool '${pool}'`),
  }));
  return { budget, pools };
}

/** Replaces a team's quota (budget and pools) and records it in the audit log. */
export async function writeQuota(
  tx: Knex.Transaction,
  input: {
    team: string;
    budget: number;
    pools: Array<{ team: string; pool: string; nominal_gpu_units: number }>;
    actor: string;
  },
): Promise<QuotaRecord> {
  const { team, budget, pools, actor } = input;
  await lockTeam(tx, team);
  const before = await readQuota(tx, team);
  const now = new Date();
  await tx('team_quotas')
    .insert({
      team,
      monthly_budget_micros: budget,
      updated_by: actor,
      updated_at: now,
    })
    .onConflict('team')
    .merge();
  await tx('pool_quotas').where({ team }).delete();
  if (pools.length > 0) {
    await tx('pool_quotas').insert(pools);
  }
  const after = (await readQuota(tx, team))!;
  await writeAuditEvent(tx, {
    actor,
    action: 'quota.put',
    subjectType: 'quota',
    subjectId: team,
    team,
    before,
    after,
  });
  return after;
}
