import { ConflictError } from '@backstage/errors';
import { Knex } from 'knex';
import {
  assess,
  decide,
  GovernanceContext,
  governanceReasons,
} from '../admission';
import { readAdmissionSnapshot } from './admissionSnapshot';
import { insertApproval } from './approvals';
import { lockPool } from './governance';
import {
  heldReservation,
  insertReservation,
  lockLedger,
  setReservationState,
} from './ledger';
import { ApprovalRow } from './rows';
import {
  insertPendingChange,
  pendingChangeConflict,
  pendingChangeOf,
} from './serviceChanges';
import {
  applyServiceChange,
  checkVersion,
  lockService,
  readService,
} from './services';
import {
  Amounts,
  ReplaceReservationInput,
  ReplaceReservationResult,
  ServiceStatus,
} from './types';

/**
 * Statuses in which a service runs (or is meant to) and may be changed. Not `applying`: a change while an apply is
 * in flight would race it (two applies of different versions); it is refused until that apply ends.
 */
export const CHANGEABLE_STATUSES: ServiceStatus[] = [
  'approved',
  'starting',
  'ready',
  'failed',
];

/**
 * Changes a running service: replaces its held reservation, or proposes the change for approval. Conditional on the
 * version the change was computed from (`expectedUpdatedAt`): a service written since is a `ConflictError` and
 * nothing is written. When the change is in effect at once, the spec, its manifests and the status the service
 * takes (`input.status`) are one write, so a process that stops right after leaves them consistent. A GitOps change
 * pending until its pull request is merged (`input.pendingChange`) records the service as it was, to be restored
 * (`service_changes`); while one is pending, any other change is a `ConflictError` that names its request.
 */
export async function replaceReservationInTransaction(
  tx: Knex.Transaction,
  input: ReplaceReservationInput,
  amounts: Amounts,
  context: GovernanceContext,
): Promise<ReplaceReservationResult> {
  const team = (await readService(tx, input.serviceId)).team;
  const ledger = await lockLedger(tx, team, input.change.pool);
  const before = await lockService(tx, input.serviceId);
  checkVersion(before, input.expectedUpdatedAt);
  if (!CHANGEABLE_STATUSES.includes(before.status)) {
    throw new ConflictError(
      `Service '${before.name}' is ${before.status}; it can be changed when it is ` +
        `${CHANGEABLE_STATUSES.join(', ')}`,
    );
  }
  const pendingChange = await pendingChangeOf(tx, before.id);
  if (pendingChange) {
    throw pendingChangeConflict(before, pendingChange);
  }
  const waiting = await tx<ApprovalRow>('approvals')
    .where({ service_id: before.id, state: 'pending' })
    .first();
  if (waiting) {
    throw new ConflictError(
      `Service '${before.name}' already has a change waiting for approval ${waiting.id}; ` +
        `decide it first`,
    );
  }
  const current = await heldReservation(tx, before.id);
  await lockPool(tx, input.change.pool);
  const now = context.now();
  const snapshot = await readAdmissionSnapshot(tx, context, {
    ledger,
    excludeReservationId: current?.id,
    now,
  });
  const assessment = assess(
    context,
    snapshot,
    amounts,
    input.change.placement.migProfile,
  );
  const decision = decide(
    context,
    input.policy,
    assessment,
    governanceReasons(context, before.environment, input.change.pool),
  );

  if (decision.pending) {
    const reservation = await insertReservation(tx, {
      service: before,
      pool: input.change.pool,
      migProfile: input.change.placement.migProfile,
      amounts,
      state: 'pending',
      now,
      actor: input.actor,
    });
    const approval = await insertApproval(tx, {
      service: before,
      reservation,
      kind: 'change',
      reasons: decision.reasons,
      proposal: input.change,
      overage: assessment.overage,
      maxPendingPerTeam: context.maxPendingApprovalsPerTeam,
      now,
      actor: input.actor,
    });
    return {
      outcome: 'pending-approval',
      service: before,
      reservation,
      approval,
    };
  }

  if (current) {
    await setReservationState(tx, current, 'released', input.actor, now);
  }
  const reservation = await insertReservation(tx, {
    service: before,
    pool: input.change.pool,
    migProfile: input.change.placement.migProfile,
    amounts,
    state: 'held',
    now,
    actor: input.actor,
  });
  const service = await applyServiceChange(
    tx,
    before,
    input.change,
    input.actor,
    now,
    input.status,
  );
  if (input.pendingChange && !input.dryRun) {
    await insertPendingChange(tx, {
      before,
      previousReservationId: current?.id,
      generation: service.generation,
      confirmBy: input.pendingChange.confirmBy,
      actor: input.actor,
      now,
    });
  }
  return { outcome: 'replaced', service, reservation };
}
