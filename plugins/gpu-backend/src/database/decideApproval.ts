import { ConflictError, InputError, NotFoundError } from '@backstage/errors';
import { Knex } from 'knex';
import { describeOverage } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  assertApprovalWithinCapacity,
  assess,
  GovernanceContext,
} from '../admission';
import { readAdmissionSnapshot } from './admissionSnapshot';
import { setApprovalState } from './approvals';
import { assertMayDecide, lockPool } from './governance';
import { heldReservation, lockLedger, setReservationState } from './ledger';
import {
  ApprovalRow,
  ReservationRow,
  toApprovalRecord,
  toReservationRecord,
} from './rows';
import {
  applyServiceChange,
  isUuid,
  lockService,
  setServiceStatus,
} from './services';
import { CHANGEABLE_STATUSES } from './replaceReservation';
import { amountsOf } from './reservationAmounts';
import {
  ApprovalRecord,
  DecideApprovalInput,
  DecideApprovalResult,
  ServiceRecord,
} from './types';

export function checkDecision(input: DecideApprovalInput): void {
  if (input.decision !== 'approve' && input.decision !== 'reject') {
    throw new InputError(
      `decision must be 'approve' or 'reject'; got '${input.decision}'`,
    );
  }
}

/**
 * Approves (holding the reservation if it fits, or with `allowOverQuota`, never beyond the pool's physical capacity)
 * or rejects (releasing it) a pending approval; the decider is a user other than the requester (four eyes).
 */
export async function decideApprovalInTransaction(
  tx: Knex.Transaction,
  input: DecideApprovalInput,
  context: GovernanceContext,
): Promise<DecideApprovalResult> {
  const found = isUuid(input.id)
    ? await tx<ApprovalRow>('approvals').where({ id: input.id }).first()
    : undefined;
  if (!found) {
    throw new NotFoundError(`No approval with id '${input.id}'`);
  }
  const reservationRow = await tx<ReservationRow>('reservations')
    .where({ id: found.reservation_id })
    .first();
  const ledger = await lockLedger(tx, found.team, reservationRow!.pool);
  const service = await lockService(tx, found.service_id);
  const approval = toApprovalRecord(
    (await tx<ApprovalRow>('approvals').where({ id: input.id }).first())!,
  );
  if (approval.state !== 'pending') {
    throw new ConflictError(
      `Approval ${approval.id} is already ${approval.state}; only pending approvals can be decided`,
    );
  }
  checkServiceDecidable(service, approval.kind, input.decision);
  assertMayDecide(approval, service, input.actor, input.decision);
  const reservation = toReservationRecord(
    (await tx<ReservationRow>('reservations')
      .where({ id: approval.reservationId })
      .first())!,
  );
  const now = context.now();

  if (input.decision === 'reject') {
    const released = await setReservationState(
      tx,
      reservation,
      'released',
      input.actor,
      now,
    );
    const decided = await setApprovalState(
      tx,
      approval,
      'rejected',
      input.actor,
      now,
      input.comment,
    );
    let after = service;
    if (approval.kind === 'create') {
      after = await setServiceStatus(tx, service, {
        status: 'rejected',
        reason: 'Rejected',
        statusReason: `Rejected by ${input.actor}${
          input.comment ? `: ${input.comment}` : ''
        }`,
        actor: input.actor,
        now,
      });
    }
    return { approval: decided, service: after, reservation: released };
  }

  const current =
    approval.kind === 'change'
      ? await heldReservation(tx, service.id)
      : undefined;
  await lockPool(tx, reservation.pool);
  const snapshot = await readAdmissionSnapshot(tx, context, {
    ledger,
    excludeReservationId: current?.id,
    now,
  });
  const assessment = assess(
    context,
    snapshot,
    amountsOf(reservation),
    (approval.proposal?.placement ?? service.placement).migProfile,
  );
  assertApprovalWithinCapacity(assessment.capacity);
  const { reasons, overage } = assessment;
  if (reasons.length > 0 && !input.allowOverQuota) {
    throw new ConflictError(
      `Approving would over-allocate: ${reasons
        .map(r => r.message)
        .join('; ')}. Approve with allowOverQuota to grant it anyway`,
    );
  }
  const granted = overage.overQuota
    ? `. Granted beyond quota or budget (allowOverQuota): ${describeOverage(
        overage,
      )}`
    : '';
  if (current) {
    await setReservationState(tx, current, 'released', input.actor, now);
  }
  const held = await setReservationState(
    tx,
    reservation,
    'held',
    input.actor,
    now,
  );
  const decided = await setApprovalState(
    tx,
    approval,
    'approved',
    input.actor,
    now,
    input.comment,
    overage,
  );
  const after =
    approval.kind === 'change'
      ? // `approved`: the change is in effect and waits to be deployed (applied, or rendered for dry-run/GitOps).
        await applyServiceChange(
          tx,
          service,
          approval.proposal!,
          input.actor,
          now,
          {
            status: 'approved',
            reason: 'Approved',
            statusReason: `Change approved by ${input.actor}${
              input.comment ? `: ${input.comment}` : ''
            }${granted}`,
          },
        )
      : await setServiceStatus(tx, service, {
          status: 'approved',
          reason: 'Approved',
          statusReason: `Approved by ${input.actor}${
            input.comment ? `: ${input.comment}` : ''
          }${granted}`,
          actor: input.actor,
          now,
        });
  return { approval: decided, service: after, reservation: held };
}

/**
 * A decision is conditional on the service being where its approval left it: a new service still waiting
 * (`pending-approval`); for approving a change, a status that may be changed (not while an apply is in flight, whose
 * outcome would be lost). Rejecting a change leaves the service as it is.
 */
function checkServiceDecidable(
  service: ServiceRecord,
  kind: ApprovalRecord['kind'],
  decision: DecideApprovalInput['decision'],
): void {
  if (kind === 'change' && decision === 'reject') {
    return;
  }
  const expected =
    kind === 'create' ? ['pending-approval' as const] : CHANGEABLE_STATUSES;
  if (!expected.includes(service.status)) {
    throw new ConflictError(
      `Service '${service.name}' is ${
        service.status
      }; this ${kind} can be decided when it is ${expected.join(', ')}`,
    );
  }
}
