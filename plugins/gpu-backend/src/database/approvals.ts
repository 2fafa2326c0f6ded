import { ConflictError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { ApprovalRow, toApprovalRecord, toJson } from './rows';
import { isUuid } from './services';
import type { ApprovalOverage } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  ApprovalReason,
  ApprovalRecord,
  ReservationRecord,
  ServiceChange,
  ServiceRecord,
} from './types';

export async function insertApproval(
  tx: Knex.Transaction,
  options: {
    service: ServiceRecord;
    reservation: ReservationRecord;
    kind: 'create' | 'change';
    reasons: ApprovalReason[];
    proposal?: ServiceChange;
    /** What approving would grant beyond quota and budget, as of the request. */
    overage?: ApprovalOverage;
    /** Refuse the request when its team already has this many waiting. */
    maxPendingPerTeam: number;
    now: Date;
    actor: string;
  },
): Promise<ApprovalRecord> {
  const waiting = await tx<ApprovalRow>('approvals')
    .where({ team: options.service.team, state: 'pending' })
    .count({ count: '*' })
    .first();
  if (Number(waiting?.count ?? 0) >= options.maxPendingPerTeam) {
    throw new ConflictError(
      `Team ${options.service.team} already has ${options.maxPendingPerTeam} requests waiting for approval, ` +
        'the most a team may have at once; withdraw some or wait for the platform team to decide them',
    );
  }
  const row: ApprovalRow = {
    id: randomUUID(),
    service_id: options.service.id,
    reservation_id: options.reservation.id,
    team: options.service.team,
    kind: options.kind,
    reasons: JSON.stringify(options.reasons),
    proposal: toJson(options.proposal),
    state: 'pending',
    requested_by: options.actor,
    requested_at: options.now,
    decided_by: null,
    decided_at: null,
    comment: null,
    overage: toJson(options.overage),
  };
  await tx<ApprovalRow>('approvals').insert(row);
  const approval = toApprovalRecord(row);
  await writeAuditEvent(tx, {
    actor: options.actor,
    action: 'approval.request',
    subjectType: 'approval',
    subjectId: approval.id,
    team: approval.team,
    after: approval,
  });
  return approval;
}

/**
 * Decides a pending approval. `overage`, when given, replaces the recorded one: what an approval granted beyond
 * quota and budget at the decision (audited with it).
 */
export async function setApprovalState(
  tx: Knex.Transaction,
  before: ApprovalRecord,
  state: 'approved' | 'rejected',
  actor: string,
  now: Date,
  comment?: string,
  overage?: ApprovalOverage,
): Promise<ApprovalRecord> {
  const changed = await tx<ApprovalRow>('approvals')
    .where({ id: before.id, state: 'pending' })
    .update({
      state,
      decided_by: actor,
      decided_at: now,
      comment: comment ?? null,
      ...(overage ? { overage: toJson(overage) } : {}),
    });
  if (changed !== 1) {
    throw new ConflictError(
      `Approval ${before.id} was decided concurrently; reload it`,
    );
  }
  const after = toApprovalRecord(
    (await tx<ApprovalRow>('approvals').where({ id: before.id }).first())!,
  );
  await writeAuditEvent(tx, {
    actor,
    action: state === 'approved' ? 'approval.approve' : 'approval.reject',
    subjectType: 'approval',
    subjectId: before.id,
    team: before.team,
    before,
    after,
  });
  return after;
}

export async function listApprovals(
  db: Knex,
  filter: { state?: string; team?: string; serviceId?: string } = {},
): Promise<ApprovalRecord[]> {
  const query = db<ApprovalRow>('approvals');
  if (filter.state !== undefined) {
    query.where('state', filter.state);
  }
  if (filter.team !== undefined) {
    query.where('team', filter.team);
  }
  if (filter.serviceId !== undefined) {
    if (!isUuid(filter.serviceId)) {
      return [];
    }
    query.where('service_id', filter.serviceId);
  }
  const rows = await query.orderBy([
    { column: 'requested_at', order: 'asc' },
    { column: 'id', order: 'asc' },
  ]);
  return rows.map(toApprovalRecord);
}

export async function getApproval(
  db: Knex,
  id: string,
): Promise<ApprovalRecord | undefined> {
  if (!isUuid(id)) {
    return undefined;
  }
  const row = await db<ApprovalRow>('approvals').where({ id }).first();
  return row ? toApprovalRecord(row) : undefined;
}
