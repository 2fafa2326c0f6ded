import { ConflictError, NotFoundError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { serviceAuditView, ServiceRow, toJson, toServiceRecord } from './rows';
import { isPostgres } from './transactions';
import { ServiceChange, ServiceRecord, ServiceStatusWrite } from './types';

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
  return toServiceRecord(await lockServiceRow(tx, id));
}

/** The service's row, locked for the rest of the transaction (PostgreSQL `FOR UPDATE`; SQLite runs one at a time). */
export async function lockServiceRow(
  tx: Knex.Transaction,
  id: string,
): Promise<ServiceRow> {
  if (!isUuid(id)) {
    throw new NotFoundError(`No service with id '${id}'`);
  }
  const query = tx<ServiceRow>('services').where({ id }).first();
  const row = await (isPostgres(tx) ? query.forUpdate() : query);
  if (!row) {
    throw new NotFoundError(`No service with id '${id}'`);
  }
  return row;
}

/**
 * The `updated_at` of a write of the service: now, but always later than the version it replaces, so that two writes
 * in the same millisecond still differ and a compare-and-set on `updatedAt` (`expectedUpdatedAt`) sees every change.
 */
export function nextUpdatedAt(before: ServiceRecord, now = new Date()): Date {
  const previous = Date.parse(before.updatedAt);
  return now.getTime() > previous ? now : new Date(previous + 1);
}

/**
 * The status columns of a write: the status, its reason code and sentence, and the transition time when the status or
 * the reason changes (a new sentence alone is no transition).
 */
export function statusColumns(
  before: ServiceRecord,
  write: ServiceStatusWrite,
  now: Date,
): Partial<ServiceRow> {
  const transition =
    before.status !== write.status || before.reason !== write.reason;
  return {
    status: write.status,
    reason: write.reason,
    status_reason: write.statusReason ?? null,
    ...(transition && { status_changed_at: now }),
  };
}

export async function setServiceStatus(
  tx: Knex.Transaction,
  before: ServiceRecord,
  options: ServiceStatusWrite & {
    actor: string;
    now: Date;
  },
): Promise<ServiceRecord> {
  const updatedAt = nextUpdatedAt(before, options.now);
  await tx<ServiceRow>('services')
    .where({ id: before.id })
    .update({
      ...statusColumns(before, options, updatedAt),
      updated_by: options.actor,
      updated_at: updatedAt,
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
  status?: ServiceStatusWrite,
): Promise<ServiceRecord> {
  const updatedAt = nextUpdatedAt(before, now);
  await tx<ServiceRow>('services')
    .where({ id: before.id })
    .update({
      generation: before.generation + 1,
      tier: change.tier,
      pool: change.pool,
      ...movedColumns(before, change),
      request: JSON.stringify(change.request),
      placement: JSON.stringify(change.placement),
      ...(change.quote !== undefined && { quote: toJson(change.quote) }),
      ...(change.manifests !== undefined && {
        manifests: toJson(change.manifests),
      }),
      ...(status !== undefined && statusColumns(before, status, updatedAt)),
      updated_by: actor,
      updated_at: updatedAt,
    });
  const after = await readService(tx, before.id);
  for (const action of ['service.change', 'service.status']) {
    if (
      action === 'service.status' &&
      before.status === after.status &&
      before.reason === after.reason &&
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

/**
 * The cluster columns of a change to a pool of another cluster: the service's cluster becomes the new one and, in
 * apply mode, the cluster it leaves is recorded until its objects there are removed (a move back while moving records
 * the cluster it now leaves: its objects there are the ones that go). Nothing when the cluster stays.
 */
function movedColumns(
  before: ServiceRecord,
  change: ServiceChange,
): Partial<ServiceRow> {
  if (change.cluster === undefined || change.cluster === before.cluster) {
    return {};
  }
  return {
    cluster: change.cluster,
    moving_from_cluster:
      before.mode === 'apply' && before.cluster !== undefined
        ? before.cluster
        : null,
  };
}

/** Ids are UUIDs; anything else cannot exist (and PostgreSQL would reject it). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(
    value,
  );
}
