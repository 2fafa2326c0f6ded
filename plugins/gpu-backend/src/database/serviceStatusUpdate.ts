import { ConflictError, InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { releaseServiceReservations } from './ledger';
import { ServiceRow, serviceAuditView, toJson, toServiceRecord } from './rows';
import { closeRunPeriod, RUNNABLE_STATUSES } from './runPeriods';
import {
  checkVersion,
  lockServiceRow,
  nextUpdatedAt,
  statusColumns,
} from './services';
import {
  SERVICE_STATUSES,
  ServiceRecord,
  ServiceStatus,
  UpdateServiceStatusInput,
} from './types';

/**
 * Sets a service's status (when it is one of `expectedStatus` and, with `expectedUpdatedAt`, the service was not
 * written since), optionally releasing its reservations. The row is locked first (PostgreSQL `FOR UPDATE`; SQLite
 * runs one transaction at a time), so the checks and the write are one compare-and-set.
 */
export async function updateServiceStatusInTransaction(
  tx: Knex.Transaction,
  input: UpdateServiceStatusInput,
): Promise<ServiceRecord> {
  const beforeRow = await lockServiceRow(tx, input.id);
  const before = toServiceRecord(beforeRow);
  if (input.expectedStatus && !input.expectedStatus.includes(before.status)) {
    throw new ConflictError(
      `Service '${before.name}' is ${before.status}; ` +
        `this change needs it to be ${input.expectedStatus.join(' or ')}`,
    );
  }
  checkVersion(before, input.expectedUpdatedAt);
  const now = nextUpdatedAt(before);
  const changes: Partial<ServiceRow> = {
    ...statusColumns(before, input, now),
    ...(input.observedCurrentGeneration && {
      observed_generation: before.generation,
    }),
    ...(input.manifests !== undefined && {
      manifests: toJson(input.manifests),
    }),
    ...(input.moveCompleted && { moving_from_cluster: null }),
    updated_by: input.actor,
    updated_at: now,
  };
  await tx<ServiceRow>('services').where({ id: input.id }).update(changes);
  // The locked row with what was written: no second read of the service (and of its quote and manifests).
  const after = toServiceRecord({ ...beforeRow, ...changes });
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'service.status',
    subjectType: 'service',
    subjectId: after.id,
    team: after.team,
    before: serviceAuditView(before),
    after: input.pruned?.length
      ? { ...serviceAuditView(after), pruned: input.pruned }
      : serviceAuditView(after),
  });
  if (input.releaseReservation) {
    await releaseServiceReservations(tx, after, input.actor, now);
  }
  if (!RUNNABLE_STATUSES.includes(after.status)) {
    // Torn down or failed: whatever ran stops counting as spend now.
    await closeRunPeriod(
      tx,
      after.id,
      now,
      `${after.status}${after.statusReason ? `: ${after.statusReason}` : ''}`,
    );
  }
  return after;
}

export function checkStatus(status: ServiceStatus): void {
  if (!SERVICE_STATUSES.includes(status)) {
    throw new InputError(
      `status must be one of ${SERVICE_STATUSES.join(', ')}; got '${status}'`,
    );
  }
}
