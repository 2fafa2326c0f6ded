import {
  MonthSpend,
  PoolHeldUnits,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import {
  assess,
  awaitingApprovalReason,
  decide,
  GovernanceContext,
  governanceReasons,
  monthSpendWithHold,
} from '../admission';
import { insertApproval } from './approvals';
import { auditEventRows } from './audit';
import { insertInOrder } from './insertInOrder';
import { lockAndReadForCreate } from './lockAndReadForCreate';
import { newReservationRow, reservationAuditEvent } from './ledger';
import {
  ServiceRow,
  serviceAuditView,
  toJson,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import { fromGpuUnits } from './units';
import {
  Amounts,
  ClusterMode,
  CreateServiceInput,
  CreateServiceResult,
  ServiceReason,
} from './types';

export const REQUEST_KEY_INDEX = {
  name: 'services_team_request_key_uniq',
  table: 'services',
  columns: ['team', 'request_key'],
};
export const LIVE_NAME_INDEX = {
  name: 'services_live_name_uniq',
  table: 'services',
  columns: ['namespace', 'name'],
};

/** What a create recorded, and what its team holds once it commits (none for a repeated request key). */
export interface CreateServiceOutcome {
  result: CreateServiceResult;
  /** What admission read under the team's lock, with what the create holds: a quote may use it as read now. */
  after?: {
    month: MonthSpend;
    /** GPU units the team holds on the create's pool. */
    heldGpuUnits: number;
    /** Monthly cost of everything the team holds. */
    heldMonthlyCostMicros: number;
    /** What every team holds on the create's pool. */
    poolHeld: PoolHeldUnits;
  };
}

/**
 * Creates a service and its reservation (held, or pending with an approval), or answers a repeated request key.
 * Admission reads its snapshot after the team's quota row and the pool are locked, so concurrent requests of any team
 * on the pool are weighed one after another against its capacity.
 */
export async function createServiceInTransaction(
  tx: Knex.Transaction,
  input: CreateServiceInput,
  amounts: Amounts,
  context: GovernanceContext,
): Promise<CreateServiceOutcome> {
  // Taken as the locks are asked for: on PostgreSQL the reads are sent with them.
  const now = context.now();
  const read = await lockAndReadForCreate(tx, input, context, now);
  if (read.existing) {
    return { result: read.existing };
  }
  const { snapshot } = read;
  const assessment = assess(
    context,
    snapshot,
    amounts,
    input.placement.migProfile,
  );
  const decision = decide(
    context,
    input.policy,
    assessment,
    governanceReasons(context, input.environment, input.pool),
  );
  const id = input.id ?? randomUUID();
  const row: ServiceRow = {
    id,
    name: input.name,
    team: input.team,
    namespace: input.namespace,
    entity_ref: input.entityRef ?? null,
    environment: input.environment,
    tier: input.tier,
    pool: input.pool,
    status: decision.pending ? 'pending-approval' : 'approved',
    reason: decision.pending ? 'AwaitingApproval' : approvedReason(input.mode),
    generation: 1,
    observed_generation: null,
    status_changed_at: now,
    status_reason: decision.pending
      ? awaitingApprovalReason(decision.reasons)
      : notAppliedStatusReason(input.mode) ?? null,
    request: JSON.stringify(input.request),
    placement: JSON.stringify(input.placement),
    quote: toJson(input.quote),
    manifests: decision.pending ? null : toJson(input.manifests),
    cluster: input.cluster ?? null,
    mode: input.mode,
    request_key: input.requestKey ?? null,
    confirm_by: input.confirmBy ?? null,
    created_by: input.actor,
    created_at: now,
    updated_by: input.actor,
    updated_at: now,
  };
  // The records of what is inserted, without reading them back (the columns not written are null).
  const service = toServiceRecord(row);
  const reservationRow = newReservationRow({
    service,
    pool: input.pool,
    migProfile: input.placement.migProfile,
    amounts,
    state: decision.pending ? 'pending' : 'held',
    now,
    actor: input.actor,
  });
  const reservation = toReservationRecord(reservationRow);
  await insertInOrder(tx, [
    { table: 'services', rows: [row] },
    { table: 'reservations', rows: [reservationRow] },
    {
      table: 'audit_events',
      rows: auditEventRows([
        {
          actor: input.actor,
          action: 'service.create',
          subjectType: 'service',
          subjectId: id,
          team: input.team,
          after: serviceAuditView(service),
        },
        reservationAuditEvent(reservation, input.actor),
      ]),
    },
  ]);
  const approval = decision.pending
    ? await insertApproval(tx, {
        service,
        reservation,
        kind: 'create',
        reasons: decision.reasons,
        overage: assessment.overage,
        maxPendingPerTeam: context.maxPendingApprovalsPerTeam,
        now,
        actor: input.actor,
      })
    : undefined;
  const held = decision.pending
    ? { gpuUnits: 0, monthlyCostMicros: 0 }
    : amounts;
  return {
    result: { created: true, service, reservation, approval },
    after: {
      month: decision.pending
        ? snapshot.month
        : monthSpendWithHold(
            snapshot.month,
            context.prices,
            input.pool,
            fromGpuUnits(amounts.gpuUnits),
            now,
          ),
      heldGpuUnits: snapshot.ledger.heldGpuUnits + held.gpuUnits,
      heldMonthlyCostMicros:
        snapshot.ledger.heldMonthlyCostMicros + held.monthlyCostMicros,
      poolHeld: withHeldUnits(
        snapshot.poolHeld,
        held.gpuUnits,
        input.placement.migProfile,
      ),
    },
  };
}

/** A pool's holdings with `units` more, on `migProfile` too when the placement has one. */
function withHeldUnits(
  held: PoolHeldUnits,
  units: number,
  migProfile: string | undefined,
): PoolHeldUnits {
  if (units === 0) return held;
  return {
    units: held.units + units,
    unitsByProfile: migProfile
      ? {
          ...held.unitsByProfile,
          [migProfile]: (held.unitsByProfile[migProfile] ?? 0) + units,
        }
      : held.unitsByProfile,
  };
}

/**
 * The status sentence of an approved service Backstage does not apply (GitOps, dry-run); undefined in apply mode.
 * Recorded at creation, so the deploy that follows has nothing left to write for such a service.
 */
export function notAppliedStatusReason(mode: ClusterMode): string | undefined {
  switch (mode) {
    case 'gitops':
      return 'Rendered for GitOps: publish the manifests; nothing was applied by Backstage';
    case 'dry-run':
      return 'Dry-run: no cluster is configured, the manifests are rendered and stored but not applied';
    default:
      return undefined;
  }
}

/** The reason of a service approved at creation: the reconciler applies it, or it is only rendered. */
function approvedReason(mode: ClusterMode): ServiceReason {
  switch (mode) {
    case 'gitops':
      return 'RenderedForGitOps';
    case 'dry-run':
      return 'DryRun';
    default:
      return 'Applying';
  }
}
