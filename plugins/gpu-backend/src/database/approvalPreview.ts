import {
  dedicatedGpuLimitReason,
  GPU_UNITS_PER_EQUIVALENT,
  Placement,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  AdmissionSnapshot,
  ApprovalReason,
  assess,
  decide,
  GovernanceContext,
  governanceReasons,
  monthOf,
  monthSpendOf,
} from '../admission';
import { heldByPoolOf, HeldRow, readHeldSums } from './governance';
import { allowanceOf } from './ledger';
import { spendingReservationOf } from './monthSpend';
import { amountsOf } from './reservationAmounts';
import {
  PoolQuotaRow,
  ReservationRow,
  TeamQuotaRow,
  toMs,
  toReservationRecord,
} from './rows';
import { isPostgres } from './transactions';
import { ApprovalRecord, ReservationRecord } from './types';
import { readInteger } from './units';

/** Reason code of the quote's policy findings (`ServiceManager`'s admission policy). */
const POLICY = 'policy';

/** Everything the pending approvals of a page are weighed on, read once for the page. */
interface PageLedger {
  /** The approvals' pending reservations, by id. */
  reservations: Map<string, ReservationRecord>;
  /** The environment and placement of each approval's service, by service id. */
  services: Map<string, { environment: string; placement: Placement }>;
  /** The held reservation a change gives back, by service id. */
  held: Map<string, ReservationRow>;
  teamQuotas: Map<string, TeamQuotaRow>;
  /** By `team/pool`. */
  poolQuotas: Map<string, PoolQuotaRow>;
  /** The teams' held reservations, and every one held at some point this month (what month spend counts). */
  teamReservations: ReservationRow[];
  /** What every team holds, per pool and MIG profile. */
  heldSums: HeldRow[];
}

/**
 * The approvals with each pending one weighed again now, as admission weighs a request (`assess` and `decide` on an
 * {@link AdmissionSnapshot}): its `reasons` are why it needs an approver now, against the team's current quota and
 * budget, this month's spend, the pool's free capacity and the environment's policy (a quota raised since the
 * request drops its over-quota reason), and its `overage` what approving it now would grant beyond quota and budget.
 * Everything is read once for the page, in one read-only transaction (one snapshot on PostgreSQL), a few queries
 * however many approvals. Decided approvals, and pending ones whose reservation, service or pool is gone, are
 * returned as recorded. The decision weighs the request again in its own transaction.
 */
export async function previewApprovals(
  db: Knex,
  context: GovernanceContext,
  approvals: ApprovalRecord[],
): Promise<ApprovalRecord[]> {
  const pending = approvals.filter(a => a.state === 'pending');
  if (pending.length === 0) {
    return approvals;
  }
  const now = context.now();
  const ledger = await db.transaction(async tx => {
    if (isPostgres(tx)) {
      await tx.raw(
        'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY',
      );
    }
    return readPageLedger(tx, pending, now);
  });
  return approvals.map(approval =>
    approval.state === 'pending'
      ? reassess(context, ledger, approval, now)
      : approval,
  );
}

async function readPageLedger(
  tx: Knex.Transaction,
  pending: ApprovalRecord[],
  now: Date,
): Promise<PageLedger> {
  const teams = [...new Set(pending.map(a => a.team))];
  const changed = [
    ...new Set(pending.filter(a => a.kind === 'change').map(a => a.serviceId)),
  ];
  const monthStart = new Date(monthOf(now).startMs);
  // One after another: a transaction has one connection.
  const reservationRows = await tx<ReservationRow>('reservations').whereIn(
    'id',
    pending.map(a => a.reservationId),
  );
  const serviceRows: Array<{
    id: string;
    environment: string;
    placement: string;
  }> = await tx('services')
    .select('id', 'environment', 'placement')
    .whereIn('id', [...new Set(pending.map(a => a.serviceId))]);
  const heldRows = changed.length
    ? await tx<ReservationRow>('reservations')
        .whereIn('service_id', changed)
        .where('state', 'held')
    : [];
  const teamQuotas = await tx<TeamQuotaRow>('team_quotas').whereIn(
    'team',
    teams,
  );
  const poolQuotas = await tx<PoolQuotaRow>('pool_quotas').whereIn(
    'team',
    teams,
  );
  // What `withHeld` sums (held now) and `readMonthSpend` counts (held at some point this month), for every team.
  const teamReservations = await tx<ReservationRow>('reservations')
    .whereIn('team', teams)
    .where(q =>
      q
        .where('state', 'held')
        .orWhere(held =>
          held
            .whereNotNull('held_at')
            .where(r =>
              r
                .whereNull('released_at')
                .orWhere('released_at', '>', monthStart),
            ),
        ),
    );
  const heldSums = await readHeldSums(tx);
  return {
    reservations: new Map(
      reservationRows.map(row => [row.id, toReservationRecord(row)]),
    ),
    services: new Map(
      serviceRows.map(row => [
        row.id,
        {
          environment: row.environment,
          placement: JSON.parse(row.placement) as Placement,
        },
      ]),
    ),
    held: new Map(heldRows.map(row => [row.service_id ?? '', row])),
    teamQuotas: new Map(teamQuotas.map(row => [row.team, row])),
    poolQuotas: new Map(
      poolQuotas.map(row => [`${row.team}/${row.pool}`, row]),
    ),
    teamReservations,
    heldSums,
  };
}

/** One pending approval weighed on the page's ledger. */
function reassess(
  context: GovernanceContext,
  ledger: PageLedger,
  approval: ApprovalRecord,
  now: Date,
): ApprovalRecord {
  const reservation = ledger.reservations.get(approval.reservationId);
  const service = ledger.services.get(approval.serviceId);
  if (
    !reservation ||
    reservation.state !== 'pending' ||
    !service ||
    !context.platform.pools.some(p => p.name === reservation.pool)
  ) {
    return approval;
  }
  const { team } = approval;
  const { pool } = reservation;
  // A change gives back what the service holds now.
  const current =
    approval.kind === 'change'
      ? ledger.held.get(approval.serviceId)
      : undefined;
  const teamRows = ledger.teamReservations.filter(
    r => r.team === team && r.id !== current?.id,
  );
  const held = teamRows.filter(r => r.state === 'held');
  const { startMs } = monthOf(now);
  const snapshot: AdmissionSnapshot = {
    ledger: {
      ...allowanceOf(
        team,
        pool,
        ledger.teamQuotas.get(team),
        ledger.poolQuotas.get(`${team}/${pool}`),
      ),
      heldGpuUnits: sum(
        held.filter(r => r.pool === pool).map(r => r.gpu_units),
      ),
      heldMonthlyCostMicros: sum(held.map(r => r.monthly_cost_micros)),
    },
    // Month to date counts the reservation a change gives back (held until now); the rest of the month leaves it out.
    month: monthSpendOf(
      ledger.teamReservations
        .filter(
          r =>
            r.team === team &&
            r.held_at !== null &&
            (r.released_at === null || toMs(r.released_at) > startMs),
        )
        .map(spendingReservationOf),
      context.prices,
      now,
      current?.id,
    ),
    poolHeld: heldByPoolOf(
      ledger.heldSums,
      current
        ? [
            {
              pool: current.pool,
              profile: current.mig_profile ?? null,
              units: current.gpu_units,
              reservations: 1,
            },
          ]
        : [],
    )[pool] ?? { units: 0, unitsByProfile: {} },
    now,
  };
  const placement = approval.proposal?.placement ?? service.placement;
  const amounts = amountsOf(reservation);
  const assessment = assess(context, snapshot, amounts, placement.migProfile);
  const { reasons } = decide(
    // A pending request is never refused here: beyond the pool's free capacity it waits for capacity to be freed.
    { ...context, whenOverPoolCapacity: 'approval' },
    {
      approvalReasons: policyReasons(context, approval, service, amounts),
      whenOverQuota: 'require-approval',
    },
    assessment,
    governanceReasons(context, service.environment, pool),
  );
  return { ...approval, reasons, overage: assessment.overage };
}

/**
 * The quote's policy findings that do not depend on what the team holds or the pool has (quota, budget, this month's
 * budget, spot in production and pool capacity are admission's own, weighed above in its words): dedicated GPUs above
 * what the environment allows without approval, for the GPUs reserved. A tier or cluster the environment does not
 * allow is refused before it can wait for approval. An environment the platform no longer has keeps the policy
 * reasons recorded with the request.
 */
function policyReasons(
  context: GovernanceContext,
  approval: ApprovalRecord,
  service: { environment: string; placement: Placement },
  amounts: { gpuUnits: number },
): ApprovalReason[] {
  const environment = context.platform.environments.find(
    e => e.name === service.environment,
  );
  if (!environment) {
    return approval.reasons.filter(r => r.code === POLICY);
  }
  const placement = approval.proposal?.placement ?? service.placement;
  const replicas =
    amounts.gpuUnits / (GPU_UNITS_PER_EQUIVALENT * placement.gpusPerReplica);
  const message = dedicatedGpuLimitReason(environment, placement, replicas);
  return message ? [{ code: POLICY, message }] : [];
}

function sum(values: Array<number | string>): number {
  return values.reduce<number>((total, v) => total + readInteger(v), 0);
}
