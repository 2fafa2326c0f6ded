import { InputError } from '@backstage/errors';
import { TeamAllowance } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { lockTeam } from './ledger';
import { readTogether } from './readTogether';
import { PoolQuotaRow, TeamQuotaRow, toIso } from './rows';
import { QuotaRecord, QuotaSpec, TeamLedger } from './types';
import { checkMicros, fromGpuUnits, readInteger, toGpuUnits } from './units';

/** The stored allowances of teams (all when `team` is omitted), as the integers the rows hold. */
async function readAllowances(
  db: Knex | Knex.Transaction,
  teamRows: TeamQuotaRow[],
): Promise<TeamAllowance[]> {
  const teams = teamRows.map(row => row.team);
  const poolRows =
    teams.length === 0
      ? []
      : await db<PoolQuotaRow>('pool_quotas')
          .whereIn('team', teams)
          .orderBy(['team', 'pool']);
  return teamRows.map(row =>
    allowanceOfRows(
      row,
      poolRows.filter(pool => pool.team === row.team),
    ),
  );
}

/** A team's allowance from its quota row and its rows per pool. */
function allowanceOfRows(
  teamRow: Pick<TeamQuotaRow, 'team' | 'monthly_budget_micros'>,
  poolRows: ReadonlyArray<Pick<PoolQuotaRow, 'pool' | 'nominal_gpu_units'>>,
): TeamAllowance {
  return {
    team: teamRow.team,
    gpuUnits: Object.fromEntries(
      poolRows.map(pool => [pool.pool, readInteger(pool.nominal_gpu_units)]),
    ),
    monthlyBudgetMicros: readInteger(teamRow.monthly_budget_micros),
  };
}

/** Every stored allowance, by team name: what the Kueue renderer gives each team's ClusterQueue. */
export async function listAllowances(
  db: Knex | Knex.Transaction,
): Promise<TeamAllowance[]> {
  return readAllowances(
    db,
    await db<TeamQuotaRow>('team_quotas').orderBy('team'),
  );
}

/**
 * A team's allowance with what its held reservations take, in integers; undefined when it has no quota. Every quote
 * reads it again after a write of the team, so its three reads are one statement on PostgreSQL.
 */
export async function readTeamLedger(
  db: Knex | Knex.Transaction,
  team: string,
): Promise<(TeamLedger & { row: TeamQuotaRow }) | undefined> {
  const answers = await readTogether<{
    team: TeamQuotaRow;
    pools: PoolQuotaRow;
    held: { pool: string; units: unknown; cost: unknown };
  }>(db, {
    team: db<TeamQuotaRow>('team_quotas').where({ team }),
    pools: db<PoolQuotaRow>('pool_quotas').where({ team }).orderBy('pool'),
    held: db('reservations')
      .where({ team, state: 'held' })
      .groupBy('pool')
      .orderBy('pool')
      .select('pool')
      .sum({ units: 'gpu_units', cost: 'monthly_cost_micros' }),
  });
  const [teamRow] = answers.team;
  if (!teamRow) {
    return undefined;
  }
  const heldByPool = answers.held;
  return {
    row: teamRow,
    allowance: allowanceOfRows(teamRow, answers.pools),
    reservedGpuUnits: Object.fromEntries(
      heldByPool.map(r => [r.pool, readInteger(r.units)]),
    ),
    reservedMonthlyCostMicros: heldByPool.reduce(
      (sum, r) => sum + readInteger(r.cost),
      0,
    ),
  };
}

/** A team's quota with what is held against it, in GPU-equivalents for display; undefined when it has none. */
export async function readQuota(
  db: Knex | Knex.Transaction,
  team: string,
): Promise<QuotaRecord | undefined> {
  const ledger = await readTeamLedger(db, team);
  if (!ledger) {
    return undefined;
  }
  const toEquivalents = (units: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(units).map(([pool, n]) => [pool, fromGpuUnits(n)]),
    );
  return {
    team,
    pools: toEquivalents(ledger.allowance.gpuUnits),
    monthlyBudgetMicros: ledger.allowance.monthlyBudgetMicros,
    reservedGpuEquivalents: toEquivalents(ledger.reservedGpuUnits),
    reservedMonthlyCostMicros: ledger.reservedMonthlyCostMicros,
    updatedBy: ledger.row.updated_by,
    updatedAt: toIso(ledger.row.updated_at),
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
