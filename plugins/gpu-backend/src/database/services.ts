import { ConflictError, NotFoundError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { serviceAuditView, ServiceRow, toJson, toServiceRecord } from './rows';
import { isPostgres } from './transactions';
import { ServiceChange, ServiceRecord, ServiceStatus } from './types';

export async function readService(
  tx: Knex.Transaction,
  id: string,
): Promise<ServiceRecord> {
  const row = isUuid(id)
    ? await tx<ServiceRow>('services').where({ id }).first()
    : undefined;
  if (!row) {
    throw new NotFoundError(`No service with id '${id}'`);
  }
  return toServiceRecord(row);
}

export async function lockService(
  tx: Knex.Transaction,
  id: string,
): Promise<ServiceRecord> {
  if (!isUuid(id)) {
    throw new NotFoundError(`No service with id '${id}'`);
  }
  const query = tx<ServiceRow>('services').where({ id }).first();
  const row = await (isPostgres(tx) ? query.forUpdate() : query);
  if (!row) {
    throw new NotFoundError(`No service with id '${id}'`);
  }
  return toServiceRecord(row);
}

/**
 * The `updated_at` of a write of the service: now, but always later than the version it replaces, so that two writes
 * in the same millisecond still differ and a compare-and-set on `updatedAt` (`expectedUpdatedAt`) sees every change.
 */
export function nextUpdatedAt(before: ServiceRecord, now = new Date()): Date {
  const previous = Date.parse(before.updatedAt);
  return now.getTime() > previous ? now : new Date(previous + 1);
}

export async function setServiceStatus(
  tx: Knex.Transaction,
  before: ServiceRecord,
  options: {
    status: ServiceStatus;
    statusReason?: string;
    actor: string;
    now: Date;
  },
): Promise<ServiceRecord> {
  await tx<ServiceRow>('services')
    .where({ id: before.id })
    .update({
      status: options.status,
      status_reason: options.statusReason ?? null,
      updated_by: options.actor,
      updated_at: nextUpdatedAt(before, options.now),
    });
  const after = await readService(tx, before.id);
  await writeAuditEvent(tx, {
    actor: options.actor,
    action: 'service.status',
    subjectType: 'service',
    subjectId: before.id,
    team: before.team,
    before: serviceAuditView(before),
    after: serviceAuditView(after),
  });
  return after;
}

/**
 * Throws `ConflictError` when the locked service was written after `expectedUpdatedAt` (the version a change was
 * computed from); nothing when `expectedUpdatedAt` is undefined.
 */
export function checkVersion(
  locked: ServiceRecord,
  expectedUpdatedAt: string | undefined,
): void {
  if (
    expectedUpdatedAt !== undefined &&
    locked.updatedAt !== new Date(expectedUpdatedAt).toISOString()
  ) {
    throw new ConflictError(
      `Service '${locked.name}' changed at ${locked.updatedAt} (expected ${expectedUpdatedAt}); ` +
        `this change was computed from an older version`,
    );
  }
}

/**
 * Writes a change of the service's spec (and, when given, the manifests rendered from it and the status it takes)
 * as one write of the locked row: the spec, the manifests and the status never disagree, even when the process
 * stops right after. Audited as `service.change`, plus `service.status` when the status or reason changes.
 */
export async function applyServiceChange(
  tx: Knex.Transaction,
  before: ServiceRecord,
  change: ServiceChange,
  actor: string,
  now: Date,
  status?: { status: ServiceStatus; statusReason?: string },
): Promise<ServiceRecord> {
  await tx<ServiceRow>('services')
    .where({ id: before.id })
    .update({
      tier: change.tier,
      pool: change.pool,
      request: JSON.stringify(change.request),
      placement: JSON.stringify(change.placement),
      ...(change.quote !== undefined && { quote: toJson(change.quote) }),
      ...(change.manifests !== undefined && {
        manifests: toJson(change.manifests),
      }),
      ...(status !== undefined && {
        status: status.status,
        status_reason: status.statusReason ?? null,
      }),
      updated_by: actor,
      updated_at: nextUpdatedAt(before, now),
    });
  const after = await readService(tx, before.id);
  for (const action of ['service.change', 'service.status']) {
    if (
      action === 'service.status' &&
      before.status === after.status &&
      before.statusReason === after.statusReason
    ) {
      continue;
    }
    await writeAuditEvent(tx, {
      actor,
      action,
      subjectType: 'service',
      subjectId: before.id,
      team: before.team,
      before: serviceAuditView(before),
      after: serviceAuditView(after),
    });
  }
  return after;
}

/** Ids are UUIDs; anything else cannot exist (and PostgreSQL would reject it). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
    value,
  );
}
