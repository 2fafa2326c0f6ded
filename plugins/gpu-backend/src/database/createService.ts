import { ConflictError } from '@backstage/errors';
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
import { readAdmissionSnapshot } from './admissionSnapshot';
import { insertApproval } from './approvals';
import { auditEventRows } from './audit';
import { insertInOrder } from './insertInOrder';
import {
  lockLedgerAndPool,
  newReservationRow,
  reservationAuditEvent,
} from './ledger';
import {
  ApprovalRow,
  ReservationRow,
  ServiceRow,
  serviceAuditView,
  toApprovalRecord,
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
  // The team's lock, then the pool's: one statement on PostgreSQL.
  const ledger = await lockLedgerAndPool(tx, input.team, input.pool);
  const existing = await findByRequestKey(tx, input);
  if (existing) {
    return { result: existing };
  }
  const now = context.now();
  const snapshot = await readAdmissionSnapshot(tx, context, { ledger, now });
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

/** The earlier result of a request with the same key; a conflict when the key was used for another request. */
export async function findByRequestKey(
  tx: Knex.Transaction,
  input: CreateServiceInput,
): Promise<CreateServiceResult | undefined> {
  if (input.requestKey === undefined) {
    return undefined;
  }
  const row = await tx<ServiceRow>('services')
    .where({ team: input.team, request_key: input.requestKey })
    .first();
  if (!row) {
    return undefined;
  }
  const service = toServiceRecord(row);
  if (
    service.name !== input.name ||
    service.namespace !== input.namespace ||
    canonicalJson(service.request) !== canonicalJson(input.request)
  ) {
    throw new ConflictError(
      `Request key '${input.requestKey}' was already used by team '${input.team}' ` +
        `for a different request (service '${service.name}'); use a new key for a new request`,
    );
  }
  const reservations = (
    await tx<ReservationRow>('reservations')
      .where({ service_id: service.id })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'asc' },
      ])
  ).map(toReservationRecord);
  const approvalRow = await tx<ApprovalRow>('approvals')
    .where({ service_id: service.id, kind: 'create' })
    .first();
  return {
    created: false,
    service,
    reservation: reservations.find(r => r.state === 'held') ?? reservations[0],
    approval: approvalRow ? toApprovalRecord(approvalRow) : undefined,
  };
}

/** JSON with object keys sorted, to compare requests regardless of key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
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
