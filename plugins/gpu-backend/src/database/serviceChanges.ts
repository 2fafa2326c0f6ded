import { ConflictError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import {
  heldReservation,
  insertReservation,
  lockLedger,
  setReservationState,
  withHeld,
} from './ledger';
import { DbTime, optionalIso, ReservationRow, toIso } from './rows';
import { applyServiceChange, lockService, readService } from './services';
import {
  ServiceChangePrevious,
  ServiceChangeRecord,
  ServiceChangeState,
  ServiceReason,
  ServiceRecord,
} from './types';
import {
  formatGpuUnits,
  formatMicros,
  fromGpuUnits,
  readInteger,
} from './units';

/** A row of `service_changes`. */
interface ServiceChangeRow {
  id: string;
  service_id: string;
  state: string;
  previous: string;
  previous_reservation_id: string | null;
  generation: number | string;
  confirm_by: DbTime | null;
  pull_request_url: string | null;
  pull_request_number: number | string | null;
  merge_by: DbTime | null;
  created_by: string;
  created_at: DbTime;
  settled_at: DbTime | null;
}

function toChangeRecord(row: ServiceChangeRow): ServiceChangeRecord {
  const confirmBy = optionalIso(row.confirm_by);
  const mergeBy = optionalIso(row.merge_by);
  const settledAt = optionalIso(row.settled_at);
  return {
    id: row.id,
    serviceId: row.service_id,
    state: row.state as ServiceChangeState,
    previous: JSON.parse(row.previous) as ServiceChangePrevious,
    ...(row.previous_reservation_id
      ? { previousReservationId: row.previous_reservation_id }
      : {}),
    generation: readInteger(row.generation),
    ...(confirmBy ? { confirmBy } : {}),
    ...(row.pull_request_url
      ? {
          pullRequest: {
            url: row.pull_request_url,
            number: readInteger(row.pull_request_number ?? 0),
            ...(mergeBy ? { mergeBy } : {}),
          },
        }
      : {}),
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
    ...(settledAt ? { settledAt } : {}),
  };
}

/** The service's pending change, if any (read in the caller's transaction, under its lock of the service). */
export async function pendingChangeOf(
  db: Knex | Knex.Transaction,
  serviceId: string,
): Promise<ServiceChangeRecord | undefined> {
  const row = await db<ServiceChangeRow>('service_changes')
    .where({ service_id: serviceId, state: 'pending' })
    .first();
  return row ? toChangeRecord(row) : undefined;
}

/**
 * The pending changes of the services `ids` lists, by service id; every pending change when `ids` is omitted (there
 * are few: one per GitOps service whose change request is open, and `service_id` is text, not comparable with the
 * services' uuid ids in a PostgreSQL subquery).
 */
export async function pendingChangesOf(
  db: Knex,
  ids?: string[],
): Promise<Map<string, ServiceChangeRecord>> {
  const query = db<ServiceChangeRow>('service_changes').where({
    state: 'pending',
  });
  if (ids) query.whereIn('service_id', ids);
  const rows = await query;
  return new Map(rows.map(row => [row.service_id, toChangeRecord(row)]));
}

/** A ConflictError saying which pending change holds the service back, and what ends it. */
export function pendingChangeConflict(
  service: ServiceRecord,
  change: ServiceChangeRecord,
): ConflictError {
  const why = change.pullRequest
    ? `waiting for its pull request ${change.pullRequest.url} to be merged; merge or close that request first`
    : `waiting for the template run that made it to record its pull request (until ${change.confirmBy}); let it finish, or wait until then`;
  return new ConflictError(
    `Service '${service.name}' has a change (generation ${change.generation}) ${why}`,
  );
}

/** Records the service as it was before a change as that change's restorable state, `pending`. */
export async function insertPendingChange(
  tx: Knex.Transaction,
  options: {
    before: ServiceRecord;
    previousReservationId?: string;
    generation: number;
    confirmBy: Date;
    actor: string;
    now: Date;
  },
): Promise<ServiceChangeRecord> {
  const { before } = options;
  const previous: ServiceChangePrevious = {
    tier: before.tier,
    pool: before.pool,
    ...(before.cluster !== undefined && { cluster: before.cluster }),
    request: before.request,
    placement: before.placement,
    ...(before.manifests && { manifests: before.manifests }),
    status: before.status,
    reason: before.reason,
    ...(before.statusReason !== undefined && {
      statusReason: before.statusReason,
    }),
  };
  const row: ServiceChangeRow = {
    id: randomUUID(),
    service_id: before.id,
    state: 'pending',
    previous: JSON.stringify(previous),
    previous_reservation_id: options.previousReservationId ?? null,
    generation: options.generation,
    confirm_by: options.confirmBy,
    pull_request_url: null,
    pull_request_number: null,
    merge_by: null,
    created_by: options.actor,
    created_at: options.now,
    settled_at: null,
  };
  await tx<ServiceChangeRow>('service_changes').insert(row);
  return toChangeRecord(row);
}

/**
 * Confirms the service's pending change: with `pullRequest`, the change follows that request from then on (until
 * `mergeBy`); without one it is kept (`confirmed`). The same request again changes nothing; another one is a conflict.
 * Audited as `service.change-request`.
 */
export async function confirmChangeInTransaction(
  tx: Knex.Transaction,
  service: ServiceRecord,
  change: ServiceChangeRecord,
  input: {
    actor: string;
    now: Date;
    pullRequest?: { url: string; number: number; mergeBy: Date };
  },
): Promise<void> {
  const { pullRequest } = input;
  if (change.pullRequest) {
    if (pullRequest && pullRequest.url !== change.pullRequest.url) {
      throw new ConflictError(
        `The pending change of service '${service.name}' already follows pull request ${change.pullRequest.url}`,
      );
    }
    return;
  }
  await tx<ServiceChangeRow>('service_changes')
    .where({ id: change.id, state: 'pending' })
    .update(
      pullRequest
        ? {
            confirm_by: null,
            pull_request_url: pullRequest.url,
            pull_request_number: pullRequest.number,
            merge_by: pullRequest.mergeBy,
          }
        : { confirm_by: null, state: 'confirmed', settled_at: input.now },
    );
  const after = await readChange(tx, change.id);
  await auditChange(tx, service, change, after, input.actor);
}

/** Keeps a pending change: `merged` or `withdrawn`; undefined when it is no longer pending. */
export async function settleChangeInTransaction(
  tx: Knex.Transaction,
  input: {
    changeId: string;
    state: 'merged' | 'withdrawn';
    actor: string;
    now: Date;
  },
): Promise<ServiceChangeRecord | undefined> {
  const before = await readChange(tx, input.changeId);
  const service = await lockService(tx, before.serviceId);
  const changed = await tx<ServiceChangeRow>('service_changes')
    .where({ id: before.id, state: 'pending' })
    .update({
      state: input.state,
      merge_by: null,
      confirm_by: null,
      settled_at: input.now,
    });
  if (changed !== 1) return undefined;
  const after = await readChange(tx, before.id);
  await auditChange(tx, service, before, after, input.actor);
  return after;
}

/**
 * Rolls a pending change back: the service's spec, manifests, cluster and status as before it (a new generation,
 * with `reason`), the reservation it holds released and its previous pool and amounts held again, the change recorded
 * `state`. The restored reservation is not weighed by admission: the cluster still runs what it holds. When the quota
 * the change freed was taken meanwhile, so that the team now holds more than its quota on that pool (or its budget),
 * the service's status line says so and the audit event carries the figures (`oversubscribed`). Undefined when the
 * change is no longer pending or the service is being deleted or deleted (then nothing is restored).
 */
export async function rollBackChangeInTransaction(
  tx: Knex.Transaction,
  input: {
    changeId: string;
    state: 'closed' | 'expired' | 'unconfirmed';
    reason: ServiceReason;
    statusReason: string;
    actor: string;
    now: Date;
  },
): Promise<
  { service: ServiceRecord; change: ServiceChangeRecord } | undefined
> {
  const change = await readChange(tx, input.changeId);
  const { previous } = change;
  const team = (await readService(tx, change.serviceId)).team;
  // The ledger's lock first, as every reservation write takes it (the service's row lock is taken again after it).
  const ledger = await lockLedger(tx, team, previous.pool);
  const service = await lockService(tx, change.serviceId);
  const still = await tx<ServiceChangeRow>('service_changes')
    .where({ id: change.id, state: 'pending' })
    .first();
  if (!still || service.status === 'deleting' || service.status === 'deleted') {
    return undefined;
  }
  const { now, actor } = input;
  const held = await heldReservation(tx, service.id);
  if (held) {
    await setReservationState(tx, held, 'released', actor, now);
  }
  const previousRow = change.previousReservationId
    ? await tx<ReservationRow>('reservations')
        .where({ id: change.previousReservationId })
        .first()
    : undefined;
  if (previousRow) {
    await insertReservation(tx, {
      service,
      pool: previousRow.pool,
      migProfile: previousRow.mig_profile ?? undefined,
      amounts: {
        gpuUnits: readInteger(previousRow.gpu_units),
        monthlyCostMicros: readInteger(previousRow.monthly_cost_micros),
      },
      state: 'held',
      now,
      actor,
    });
  }
  // Not weighed by admission (the cluster runs it), but the quota it freed may have been taken meanwhile: said.
  const oversubscribed = previousRow
    ? await oversubscription(tx, ledger)
    : undefined;
  const restored = await applyServiceChange(
    tx,
    service,
    {
      tier: previous.tier,
      pool: previous.pool,
      ...(previous.cluster !== undefined && { cluster: previous.cluster }),
      request: previous.request,
      placement: previous.placement,
      ...(previous.manifests && { manifests: previous.manifests }),
    },
    actor,
    now,
    {
      status: 'approved',
      reason: input.reason,
      statusReason: oversubscribed
        ? `${input.statusReason}. ${oversubscribed.words}`
        : input.statusReason,
    },
  );
  await tx<ServiceChangeRow>('service_changes')
    .where({ id: change.id })
    .update({
      state: input.state,
      merge_by: null,
      confirm_by: null,
      settled_at: now,
    });
  const after = await readChange(tx, change.id);
  await auditChange(
    tx,
    service,
    change,
    after,
    actor,
    oversubscribed && { oversubscribed: oversubscribed.figures },
  );
  return { service: restored, change: after };
}

/**
 * Whether what the team holds now, with a restored reservation, is beyond its quota on the ledger's pool or its
 * monthly budget (the quota a pending change freed was taken meanwhile): the figures, and a sentence that says so.
 */
async function oversubscription(
  tx: Knex.Transaction,
  ledger: Awaited<ReturnType<typeof lockLedger>>,
): Promise<
  | {
      figures: {
        pool: string;
        heldGpuEquivalents: number;
        quotaGpuEquivalents?: number;
        heldMonthlyCostMicros: number;
        monthlyBudgetMicros?: number;
      };
      words: string;
    }
  | undefined
> {
  const snapshot = await withHeld(tx, ledger);
  const { nominalGpuUnits, monthlyBudgetMicros } = snapshot;
  const overQuota =
    nominalGpuUnits !== undefined && snapshot.heldGpuUnits > nominalGpuUnits;
  const overBudget =
    monthlyBudgetMicros !== undefined &&
    snapshot.heldMonthlyCostMicros > monthlyBudgetMicros;
  if (!overQuota && !overBudget) return undefined;
  const words = [
    overQuota &&
      `team ${ledger.team} now holds ${formatGpuUnits(
        snapshot.heldGpuUnits,
      )} GPU-equivalents on pool ${
        ledger.pool
      }, over its quota of ${formatGpuUnits(nominalGpuUnits!)}`,
    overBudget &&
      `its reservations cost ${formatMicros(
        snapshot.heldMonthlyCostMicros,
      )} a month, over its budget of ${formatMicros(monthlyBudgetMicros!)}`,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    figures: {
      pool: ledger.pool,
      heldGpuEquivalents: fromGpuUnits(snapshot.heldGpuUnits),
      ...(nominalGpuUnits !== undefined && {
        quotaGpuEquivalents: fromGpuUnits(nominalGpuUnits),
      }),
      heldMonthlyCostMicros: snapshot.heldMonthlyCostMicros,
      ...(monthlyBudgetMicros !== undefined && { monthlyBudgetMicros }),
    },
    words: `Restored over quota: ${words} (the quota the change freed was taken while it was pending); the cluster runs the restored spec, so it is held regardless`,
  };
}

/** Pending changes of every service, oldest first. */
export async function listPendingChanges(
  db: Knex,
): Promise<ServiceChangeRecord[]> {
  const rows = await db<ServiceChangeRow>('service_changes')
    .where({ state: 'pending' })
    .orderBy('created_at', 'asc')
    .limit(500);
  return rows.map(toChangeRecord);
}

async function readChange(
  tx: Knex.Transaction,
  id: string,
): Promise<ServiceChangeRecord> {
  const row = await tx<ServiceChangeRow>('service_changes')
    .where({ id })
    .first();
  if (!row) throw new ConflictError(`No pending change with id '${id}'`);
  return toChangeRecord(row);
}

/**
 * The change's request and state before and after, on the service's trail (`service.change-request`); `extra` goes
 * with the after state (a rollback's `oversubscribed` figures).
 */
async function auditChange(
  tx: Knex.Transaction,
  service: ServiceRecord,
  before: ServiceChangeRecord,
  after: ServiceChangeRecord,
  actor: string,
  extra?: Record<string, unknown>,
): Promise<void> {
  const view = (c: ServiceChangeRecord) => ({
    changeId: c.id,
    generation: c.generation,
    state: c.state,
    pullRequest: c.pullRequest ?? null,
    confirmBy: c.confirmBy ?? null,
  });
  await writeAuditEvent(tx, {
    actor,
    action: 'service.change-request',
    subjectType: 'service',
    subjectId: service.id,
    team: service.team,
    before: view(before),
    after: { ...view(after), ...extra },
  });
}
