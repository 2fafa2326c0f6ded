import { ConflictError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { ServiceRow, toServiceRecord } from './rows';
import { lockService, nextUpdatedAt, readService } from './services';
import { ServiceRecord } from './types';

/** Statuses a provisional service can no longer be confirmed from: its confirmation expired, or it was deleted. */
const GONE = new Set(['deleting', 'deleted']);

/**
 * Confirms a provisional service (clears `confirm_by`), audited as `service.confirm`. Confirming a confirmed service
 * changes nothing; one being deleted or deleted (its confirmation expired, or someone deleted it) is a conflict.
 */
export async function confirmServiceInTransaction(
  tx: Knex.Transaction,
  input: { id: string; actor: string; now: Date },
): Promise<ServiceRecord> {
  const service = await lockService(tx, input.id);
  if (GONE.has(service.status)) {
    const expired =
      service.confirmBy && Date.parse(service.confirmBy) <= input.now.getTime();
    const why = expired ? `: it was not confirmed by ${service.confirmBy}` : '';
    throw new ConflictError(
      `Service '${service.name}' is ${service.status} and can no longer be confirmed${why}`,
    );
  }
  if (!service.confirmBy) {
    return service;
  }
  await tx<ServiceRow>('services')
    .where({ id: service.id })
    .update({
      confirm_by: null,
      updated_by: input.actor,
      updated_at: nextUpdatedAt(service, input.now),
    });
  const confirmed = await readService(tx, service.id);
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'service.confirm',
    subjectType: 'service',
    subjectId: service.id,
    team: service.team,
    before: { confirmBy: service.confirmBy },
    after: { confirmBy: null },
  });
  return confirmed;
}

/** Provisional services whose confirmation time has passed and that are not being deleted yet, oldest first. */
export async function listUnconfirmedServices(
  db: Knex,
  before: Date,
): Promise<ServiceRecord[]> {
  const rows = await db<ServiceRow>('services')
    .whereNotNull('confirm_by')
    .where('confirm_by', '<=', before)
    .whereNotIn('status', [...GONE])
    .orderBy('confirm_by', 'asc')
    .limit(500);
  return rows.map(toServiceRecord);
}
