import type { JsonObject } from '@backstage/types';
import {
  ApprovalRecord,
  AuditEvent,
  BatchJobRecord,
  AuditSubjectType,
  ClusterMode,
  ReservationRecord,
  ReservationState,
  ServiceRecord,
  ServiceStatus,
  ServiceReason,
  ApprovalKind,
  ApprovalState,
  PullRequestState,
} from './types';
import { fromGpuUnits, readInteger } from './units';

/** Timestamps come back as Date (pg), epoch milliseconds (better-sqlite3) or strings. */
export type DbTime = Date | number | string;

export interface ServiceRow {
  id: string;
  name: string;
  team: string;
  namespace: string;
  entity_ref: string | null;
  environment: string;
  tier: string;
  pool: string;
  status: string;
  status_reason: string | null;
  reason: string;
  generation: number | string;
  observed_generation: number | string | null;
  status_changed_at: DbTime | null;
  request: string;
  placement: string;
  quote: string | null;
  manifests: string | null;
  cluster: string | null;
  moving_from_cluster?: string | null;
  mode: string;
  request_key: string | null;
  confirm_by?: DbTime | null;
  pull_request_url?: string | null;
  pull_request_number?: number | string | null;
  pull_request_state?: string | null;
  merge_by?: DbTime | null;
  created_by: string;
  created_at: DbTime;
  updated_by: string;
  updated_at: DbTime;
}

export interface ReservationRow {
  id: string;
  /** The service it belongs to; null for a batch job's. */
  service_id: string | null;
  /** The batch job it belongs to; null (or absent before the batch job migration) for a service's. */
  batch_job_id?: string | null;
  team: string;
  pool: string;
  gpu_units: number | string;
  monthly_cost_micros: number | string;
  state: string;
  created_at: DbTime;
  held_at: DbTime | null;
  released_at: DbTime | null;
  /** MIG profile held (the `mig` tier); null otherwise. What pool capacity sums by, without reading the service. */
  mig_profile?: string | null;
}

export interface ApprovalRow {
  id: string;
  service_id: string;
  reservation_id: string;
  team: string;
  kind: string;
  reasons: string;
  proposal: string | null;
  state: string;
  requested_by: string;
  requested_at: DbTime;
  decided_by: string | null;
  decided_at: DbTime | null;
  comment: string | null;
  /** JSON `ApprovalOverage`; null on approvals recorded before the column existed. */
  overage?: string | null;
}

export interface AuditEventRow {
  id: number | string;
  at: DbTime;
  actor: string;
  action: string;
  subject_type: string;
  subject_id: string;
  team: string | null;
  before: string | null;
  after: string | null;
}

export interface TeamQuotaRow {
  team: string;
  monthly_budget_micros: number | string;
  updated_by: string;
  updated_at: DbTime;
}

export interface PoolQuotaRow {
  team: string;
  pool: string;
  nominal_gpu_units: number | string;
}

/** ISO 8601 in UTC for any timestamp representation the drivers return. */
export function toIso(value: DbTime): string {
  return new Date(toMs(value)).toISOString();
}

/** Epoch milliseconds for any timestamp representation the drivers return. */
export function toMs(value: DbTime): number {
  if (typeof value === 'number') {
    return value;
  }
  if (value instanceof Date) {
    return value.getTime();
  }
  if (/^\d+$/.test(value)) {
    return Number(value);
  }
  // SQLite's CURRENT_TIMESTAMP form ('YYYY-MM-DD HH:MM:SS') is UTC.
  return Date.parse(
    value.includes('T') ? value : `${value.replace(' ', 'T')}Z`,
  );
}

export function optionalIso(value: DbTime | null): string | undefined {
  return value === null || value === undefined ? undefined : toIso(value);
}

function optional<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}

function parseJson<T>(value: string | null): T | undefined {
  return value === null || value === undefined
    ? undefined
    : (JSON.parse(value) as T);
}

/** Serialises a JSON column; undefined stays SQL NULL. */
export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export function toServiceRecord(row: ServiceRow): ServiceRecord {
  return {
    id: row.id,
    name: row.name,
    team: row.team,
    namespace: row.namespace,
    entityRef: optional(row.entity_ref),
    environment: row.environment,
    tier: row.tier as ServiceRecord['tier'],
    pool: row.pool,
    status: row.status as ServiceStatus,
    reason: row.reason as ServiceReason,
    statusReason: optional(row.status_reason),
    generation: readInteger(row.generation),
    observedGeneration:
      row.observed_generation === null
        ? undefined
        : readInteger(row.observed_generation),
    statusChangedAt: toIso(row.status_changed_at ?? row.updated_at),
    request: JSON.parse(row.request),
    placement: JSON.parse(row.placement),
    quote: parseJson<JsonObject>(row.quote),
    manifests: parseJson<ServiceRecord['manifests']>(row.manifests),
    cluster: optional(row.cluster),
    ...(row.moving_from_cluster ? { movingFrom: row.moving_from_cluster } : {}),
    mode: row.mode as ClusterMode,
    requestKey: optional(row.request_key),
    ...(row.confirm_by ? { confirmBy: toIso(row.confirm_by) } : {}),
    ...(row.pull_request_url && row.pull_request_state
      ? {
          pullRequest: {
            url: row.pull_request_url,
            number: readInteger(row.pull_request_number ?? 0),
            state: row.pull_request_state as PullRequestState,
            ...(row.merge_by ? { mergeBy: toIso(row.merge_by) } : {}),
          },
        }
      : {}),
    createdBy: row.created_by,
    createdAt: toIso(row.created_at),
    updatedBy: row.updated_by,
    updatedAt: toIso(row.updated_at),
  };
}

export function toReservationRecord(row: ReservationRow): ReservationRecord {
  return {
    id: row.id,
    serviceId: row.service_id ?? '',
    ...(row.batch_job_id ? { batchJobId: row.batch_job_id } : {}),
    team: row.team,
    pool: row.pool,
    gpuEquivalents: fromGpuUnits(readInteger(row.gpu_units)),
    monthlyCostMicros: readInteger(row.monthly_cost_micros),
    state: row.state as ReservationState,
    createdAt: toIso(row.created_at),
    heldAt: optionalIso(row.held_at),
    releasedAt: optionalIso(row.released_at),
  };
}

export function toApprovalRecord(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    reservationId: row.reservation_id,
    team: row.team,
    kind: row.kind as ApprovalKind,
    reasons: JSON.parse(row.reasons),
    proposal: parseJson<ApprovalRecord['proposal']>(row.proposal),
    state: row.state as ApprovalState,
    requestedBy: row.requested_by,
    requestedAt: toIso(row.requested_at),
    decidedBy: optional(row.decided_by),
    decidedAt: optionalIso(row.decided_at),
    comment: optional(row.comment),
    ...(row.overage ? { overage: JSON.parse(row.overage) } : {}),
  };
}

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return {
    id: String(row.id),
    at: toIso(row.at),
    actor: row.actor,
    action: row.action,
    subjectType: row.subject_type as AuditSubjectType,
    subjectId: row.subject_id,
    team: optional(row.team),
    before: parseJson<JsonObject>(row.before),
    after: parseJson<JsonObject>(row.after),
  };
}

/** The service as audit events show it: everything but the (large) manifests. */
export function serviceAuditView(
  service: ServiceRecord,
): Omit<ServiceRecord, 'manifests'> & { manifestCount?: number } {
  const { manifests, ...rest } = service;
  return manifests ? { ...rest, manifestCount: manifests.length } : rest;
}

export interface BatchJobRow {
  id: string;
  name: string;
  namespace: string;
  team: string;
  environment: string;
  pool: string;
  cluster: string | null;
  /** Absent on rows read before the column existed (never in practice: migrations run first). */
  worker_cluster?: string | null;
  mode: string;
  pods_at_once: number | string;
  gpus_per_pod: number | string;
  state: string;
  submitted_by: string;
  submitted_at: DbTime;
  finished_at: DbTime | null;
  finish_reason: string | null;
}

export function toBatchJobRecord(row: BatchJobRow): BatchJobRecord {
  return {
    id: row.id,
    name: row.name,
    namespace: row.namespace,
    team: row.team,
    environment: row.environment,
    pool: row.pool,
    ...(row.cluster ? { cluster: row.cluster } : {}),
    ...(row.worker_cluster ? { workerCluster: row.worker_cluster } : {}),
    mode: row.mode as BatchJobRecord['mode'],
    podsAtOnce: readInteger(row.pods_at_once),
    gpusPerPod: readInteger(row.gpus_per_pod),
    state: row.state as BatchJobRecord['state'],
    submittedBy: row.submitted_by,
    submittedAt: toIso(row.submitted_at),
    ...(row.finished_at !== null ? { finishedAt: toIso(row.finished_at) } : {}),
    ...(row.finish_reason !== null ? { finishReason: row.finish_reason } : {}),
  };
}
