import { Knex } from 'knex';
import { assess, GovernanceContext } from '../admission';
import { readAdmissionSnapshot } from './admissionSnapshot';
import { heldReservation, readLedger } from './ledger';
import {
  ReservationRow,
  ServiceRow,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import { amountsOf } from './reservationAmounts';
import { ApprovalRecord } from './types';

/**
 * A pending approval with its `overage` computed now: what approving it at this moment would grant beyond the team's
 * quota and budget (its reservation against what the team and the pool hold now, and this month's spend). Decided
 * approvals, and pending ones whose reservation or pool is gone, are returned as recorded. Reads only; the decision
 * computes it again in its transaction.
 */
export async function previewApproval(
  db: Knex,
  context: GovernanceContext,
  approval: ApprovalRecord,
): Promise<ApprovalRecord> {
  if (approval.state !== 'pending') {
    return approval;
  }
  const row = await db<ReservationRow>('reservations')
    .where({ id: approval.reservationId })
    .first();
  const reservation = row ? toReservationRecord(row) : undefined;
  if (
    !reservation ||
    reservation.state !== 'pending' ||
    !context.platform.pools.some(p => p.name === reservation.pool)
  ) {
    return approval;
  }
  const serviceRow = await db<ServiceRow>('services')
    .where({ id: approval.serviceId })
    .first();
  if (!serviceRow) {
    return approval;
  }
  const service = toServiceRecord(serviceRow);
  const current =
    approval.kind === 'change'
      ? await heldReservation(db, approval.serviceId)
      : undefined;
  const snapshot = await readAdmissionSnapshot(db, context, {
    ledger: await readLedger(db, approval.team, reservation.pool),
    excludeReservationId: current?.id,
    now: context.now(),
  });
  const { overage } = assess(
    context,
    snapshot,
    amountsOf(reservation),
    (approval.proposal?.placement ?? service.placement).migProfile,
  );
  return { ...approval, overage };
}
