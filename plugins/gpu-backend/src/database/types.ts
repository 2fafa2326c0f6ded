import type { PermissionCriteria } from '@backstage/plugin-permission-common';
import type { JsonObject } from '@backstage/types';
import type {
  ApprovalOrderBy,
  ApprovalOverage,
  ClusterDriftReport,
  GpuServicePullRequest,
  MonthSpend,
  Placement,
  PoolHeldUnits,
  PullRequestState,
  ServiceReason,
  ServiceStatus,
  ServiceRequest,
  SharingTier,
  SortOrder,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { GpuServiceQuery } from '@gpu-platform/backstage-plugin-gpu-node';
import type { ClusterMode, ObjectRef } from '../cluster/types';
import type { AdmissionPolicy, ApprovalReason } from '../admission/types';

export type {
  GpuServicePullRequest,
  PullRequestState,
  ServiceReason,
  ServiceStatus,
};

/** Every {@link ServiceStatus}. */
export const SERVICE_STATUSES: readonly ServiceStatus[] = [
  'pending-approval',
  'approved',
  'applying',
  'starting',
  'ready',
  'failed',
  'rejected',
  'deleting',
  'deleted',
];

/** How a service reaches its cluster (defined with the cluster layer). */
export type { ClusterMode };

/**
 * A rendered Kubernetes object as stored with the service. Kept structural so the
 * store does not depend on a Kubernetes client.
 */
export type StoredManifest = JsonObject & {
  apiVersion: string;
  kind: string;
};

/** A service as the store keeps it. Times are ISO 8601 strings in UTC. */
export interface ServiceRecord {
  id: string;
  name: string;
  team: string;
  namespace: string;
  entityRef?: string;
  environment: string;
  tier: SharingTier;
  pool: string;
  status: ServiceStatus;
  /** Why it has its status (the code its conditions and the UI switch on). */
  reason: ServiceReason;
  statusReason?: string;
  /** Spec generation: 1 at creation, one more at every accepted change. */
  generation: number;
  /** The generation last applied to the cluster; undefined when nothing was applied. */
  observedGeneration?: number;
  /** When the status or its reason last changed. */
  statusChangedAt: string;
  request: ServiceRequest;
  placement: Placement;
  /** Quote summary the request was decided on (shape owned by the caller). */
  quote?: JsonObject;
  manifests?: StoredManifest[];
  cluster?: string;
  /**
   * While it moves to `cluster` (a change to a pool of another cluster): the cluster it leaves, whose objects keep
   * serving until it is available on `cluster` and are removed then.
   */
  movingFrom?: string;
  mode: ClusterMode;
  requestKey?: string;
  /** While provisional: when it is deleted unless confirmed (ISO 8601). */
  confirmBy?: string;
  /** GitOps: the pull (merge) request that delivers it, which its reservation follows. */
  pullRequest?: GpuServicePullRequest;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

/**
 * State of a reservation: `pending` waits for an approval and does not count
 * against quota, `held` counts, `released` no longer counts.
 */
export type ReservationState = 'pending' | 'held' | 'released';

/** One entry of the quota ledger. */
export interface ReservationRecord {
  id: string;
  /** The service it belongs to; empty for a batch job's reservation. */
  serviceId: string;
  /** The batch job it belongs to (then `serviceId` is empty). */
  batchJobId?: string;
  team: string;
  pool: string;
  /** GPU-equivalents (exact for shares whose denominator divides 5040). */
  gpuEquivalents: number;
  /** Projected monthly cost in integer micro-dollars. */
  monthlyCostMicros: number;
  state: ReservationState;
  createdAt: string;
  heldAt?: string;
  releasedAt?: string;
}

/** A batch job submitted in apply or GitOps mode: it holds a reservation while active. */
export interface BatchJobRecord {
  /** The batch id (the Job's `gpu.backstage.io/batch-id` label). */
  id: string;
  name: string;
  namespace: string;
  team: string;
  environment: string;
  pool: string;
  /** The cluster it was applied to; absent for the default one. */
  cluster?: string;
  /**
   * The MultiKueue worker cluster it ran on, once its manager's Workload names it (`cluster` is then the manager);
   * its reservation is on that worker's pool (`pool`) from then on.
   */
  workerCluster?: string;
  mode: 'apply' | 'gitops';
  /** Pods its reservation holds at once. */
  podsAtOnce: number;
  gpusPerPod: number;
  /** `active` while its reservation counts; `finished` once released. */
  state: 'active' | 'finished';
  submittedBy: string;
  submittedAt: string;
  finishedAt?: string;
  /** Why it was released: succeeded, failed, gone from its cluster, its apply failed. */
  finishReason?: string;
}

/** What a batch job submission asks the ledger for. */
export interface ReserveBatchJobInput {
  id: string;
  name: string;
  namespace: string;
  team: string;
  environment: string;
  pool: string;
  cluster?: string;
  /** `dry-run` weighs it without recording anything; `apply` and `gitops` record it with its held reservation. */
  mode: 'apply' | 'gitops' | 'dry-run';
  parallelism: number;
  minParallelism: number;
  gpusPerPod: number;
  /** The pool's projected monthly cost of one GPU, in micro-dollars (what the reservation's monthly cost counts). */
  monthlyCostMicrosPerGpu: number;
  actor: string;
}

/** What a batch job holds (or, in a dry run, would hold). */
export interface BatchJobReservation {
  podsAtOnce: number;
  gpuUnits: number;
  monthlyCostMicros: number;
  /** Absent in a dry run. */
  batchJob?: BatchJobRecord;
  reservation?: ReservationRecord;
}

/** What a service asks to reserve. */
export interface ReservationRequest {
  /** GPU-equivalents, greater than zero. */
  gpuEquivalents: number;
  /** Projected monthly cost in integer micro-dollars, zero or more. */
  monthlyCostMicros: number;
}

export type {
  AdmissionPolicy,
  ApprovalReason,
  Amounts,
  LedgerSnapshot,
} from '../admission/types';
export {
  OVER_BUDGET,
  OVER_BUDGET_THIS_MONTH,
  OVER_POOL_CAPACITY,
  OVER_QUOTA,
  SPOT_IN_PRODUCTION,
} from '../admission/types';

/** Input of {@link GpuStore.createServiceWithReservation}. */
export interface CreateServiceInput {
  /**
   * Id of the new service (a UUID); a new random one when omitted. Lets the caller render the manifests, which carry
   * the id, before the service is recorded, and store them with it.
   */
  id?: string;
  name: string;
  team: string;
  namespace: string;
  entityRef?: string;
  environment: string;
  tier: SharingTier;
  pool: string;
  request: ServiceRequest;
  placement: Placement;
  quote?: JsonObject;
  /** Stored with the service when it is admitted at once; not while it waits for approval. */
  manifests?: StoredManifest[];
  cluster?: string;
  mode: ClusterMode;
  /** Idempotency key; a second call with the same team and key returns the first service. */
  requestKey?: string;
  /** Records it provisionally: deleted unless {@link GpuStore.confirmService} confirms it by then. */
  confirmBy?: Date;
  reservation: ReservationRequest;
  policy: AdmissionPolicy;
  /** Entity ref of the user or service acting. */
  actor: string;
}

/** Result of {@link GpuStore.createServiceWithReservation}. */
export interface CreateServiceResult {
  /** False when the request key matched an existing service. */
  created: boolean;
  service: ServiceRecord;
  reservation: ReservationRecord;
  /** Present when the service waits for (or went through) an approval. */
  approval?: ApprovalRecord;
}

/** Filters of {@link GpuStore.listServices}. */
export interface ListServicesFilter {
  /** These services only (an id that is not a UUID matches nothing). */
  ids?: string[];
  team?: string | string[];
  status?: ServiceStatus | ServiceStatus[];
  namespace?: string;
  entityRef?: string;
}

/** A service with its ledger entries and approvals, as {@link GpuStore.listServicesWithReservations} reads them. */
export interface ServiceListing {
  service: ServiceRecord;
  /** Newest first, as {@link GpuStore.listReservations}. */
  reservations: ReservationRecord[];
  /** Oldest first, as {@link GpuStore.listApprovals}. */
  approvals: ApprovalRecord[];
  /** GitOps: its change pending until its pull request is merged, if any. */
  pendingChange?: ServiceChangeRecord;
}

/** Input of {@link GpuStore.updateServiceStatus}. */
export interface UpdateServiceStatusInput {
  id: string;
  status: ServiceStatus;
  reason: ServiceReason;
  /** Cleared when omitted. */
  statusReason?: string;
  /** Records that the service's current generation is applied to the cluster. */
  observedCurrentGeneration?: boolean;
  /**
   * Objects of an earlier generation the apply of this one deleted (its manifests no longer render them): recorded in
   * the status write's audit event (`after.pruned`).
   */
  pruned?: ObjectRef[];
  /** Only update when the current status is one of these (else `ConflictError`). */
  expectedStatus?: ServiceStatus[];
  /**
   * Only update when the service's `updatedAt` is still this one (else `ConflictError`): a compare-and-set on the
   * version the change was computed from. Every write of a service moves `updatedAt` forward, so a service changed,
   * re-applied or deleted meanwhile never matches.
   */
  expectedUpdatedAt?: string;
  /** Replace the stored manifests. */
  manifests?: StoredManifest[];
  /** Release the service's held or pending reservation in the same transaction. */
  releaseReservation?: boolean;
  /** Ends a move between clusters: its objects on the cluster it left are gone (clears `movingFrom`). */
  moveCompleted?: boolean;
  actor: string;
}

/** A status with the reason code and the sentence that go with it. */
export interface ServiceStatusWrite {
  status: ServiceStatus;
  reason: ServiceReason;
  statusReason?: string;
}

/** The service fields a change (PATCH) may set. */
export interface ServiceChange {
  tier: SharingTier;
  pool: string;
  /**
   * The cluster of the new pool, when it is not the service's: the service moves there (its objects on the cluster it
   * leaves are removed once it is available on this one; see `ServiceRecord.movingFrom`).
   */
  cluster?: string;
  request: ServiceRequest;
  placement: Placement;
  quote?: JsonObject;
  manifests?: StoredManifest[];
}

/** Input of {@link GpuStore.replaceReservation}. */
export interface ReplaceReservationInput {
  serviceId: string;
  /** With `manifests` rendered from it, so that the spec and the manifests are stored together. */
  change: ServiceChange;
  reservation: ReservationRequest;
  policy: AdmissionPolicy;
  /**
   * The service's `updatedAt` the change was computed from: when the service was written since, `ConflictError`
   * and nothing is written (a compare-and-set, like {@link UpdateServiceStatusInput.expectedUpdatedAt}).
   */
  expectedUpdatedAt?: string;
  /**
   * The status (and reason) the service takes when the change is in effect at once (outcome `replaced`), in the same
   * write: `applying` for the apply that follows, `approved` for a service that is only rendered. Unchanged when
   * omitted, and when the change waits for approval.
   */
  status?: ServiceStatusWrite;
  /**
   * GitOps: the change is pending until its pull (merge) request is merged. When it is in effect at once (outcome
   * `replaced`), a {@link ServiceChangeRecord} keeps the spec, status and reservation the service had, to be restored
   * when the request is closed unmerged, not merged in time, or not recorded (confirmed) by `confirmBy`.
   */
  pendingChange?: { confirmBy: Date };
  /**
   * Weighs the change as admission would (without the service's own current reservation) and answers what it would
   * record, writing nothing: everything is rolled back.
   */
  dryRun?: boolean;
  actor: string;
}

/** Input of {@link GpuStore.retryPullRequest}. */
export interface RetryPullRequestInput {
  serviceId: string;
  /** The spec as quoted again, with the manifests rendered from it (a retry publishes them anew). */
  change: ServiceChange & { manifests: StoredManifest[] };
  reservation: ReservationRequest;
  policy: AdmissionPolicy;
  /** The service's `updatedAt` the retry was computed from (a compare-and-set). */
  expectedUpdatedAt?: string;
  /** Why the service is `approved` again: the sentence of its status. */
  statusReason: string;
  /** When the new pull request must be confirmed by (`gpu.services.confirmWithin` from now). */
  confirmBy: Date;
  actor: string;
}

/** What {@link GpuStore.retryPullRequest} recorded. */
export interface RetryPullRequestResult {
  service: ServiceRecord;
  /** The new reservation, held. */
  reservation: ReservationRecord;
  /** How the last pull request ended. */
  ended: 'closed' | 'expired' | 'unconfirmed';
}

/**
 * Where a pending change of a GitOps service stands: `pending` until its request is merged; `merged` or `confirmed`
 * (kept without a request) keep it; `closed`, `expired` and `unconfirmed` rolled it back; `withdrawn`: the service was
 * deleted while it was pending (nothing restored).
 */
export type ServiceChangeState =
  | 'pending'
  | 'merged'
  | 'confirmed'
  | 'closed'
  | 'expired'
  | 'unconfirmed'
  | 'withdrawn';

/** What a pending change restores: the service as it was before it. */
export interface ServiceChangePrevious {
  tier: SharingTier;
  pool: string;
  cluster?: string;
  request: ServiceRequest;
  placement: Placement;
  manifests?: StoredManifest[];
  status: ServiceStatus;
  reason: ServiceReason;
  statusReason?: string;
}

/** A change of a GitOps service that is pending until its pull (merge) request is merged (see `service_changes`). */
export interface ServiceChangeRecord {
  id: string;
  serviceId: string;
  state: ServiceChangeState;
  previous: ServiceChangePrevious;
  /** The reservation held before the change (released by it); its pool and amounts are held again on a rollback. */
  previousReservationId?: string;
  /** The spec generation the change produced. */
  generation: number;
  /** Until its request is recorded: when it is rolled back (ISO 8601). */
  confirmBy?: string;
  /** The request that delivers it, once recorded; `mergeBy` while pending. */
  pullRequest?: { url: string; number: number; mergeBy?: string };
  createdBy: string;
  createdAt: string;
  settledAt?: string;
}

/** Result of {@link GpuStore.replaceReservation}. */
export type ReplaceReservationResult =
  | {
      /** The change is in effect: old reservation released, new one held. */
      outcome: 'replaced';
      service: ServiceRecord;
      reservation: ReservationRecord;
    }
  | {
      /** The change waits for approval; the service and its old reservation are unchanged. */
      outcome: 'pending-approval';
      service: ServiceRecord;
      reservation: ReservationRecord;
      approval: ApprovalRecord;
    };

/** A team's quota as configured. */
export interface QuotaSpec {
  /** GPU-equivalents per pool. */
  pools: Record<string, number>;
  /** Monthly budget in integer micro-dollars. */
  monthlyBudgetMicros: number;
}

/** A team's stored allowance and what its held reservations take, in the integers the store keeps. */
export interface TeamLedger {
  allowance: TeamAllowance;
  /** Held GPU units per pool, including pools without quota. */
  reservedGpuUnits: Record<string, number>;
  /** Held monthly cost over all pools, micro-dollars. */
  reservedMonthlyCostMicros: number;
}

/** A team's quota and what is held against it, in GPU-equivalents (the API's view of a {@link TeamLedger}). */
export interface QuotaRecord extends QuotaSpec {
  team: string;
  /** Held GPU-equivalents per pool, including pools without quota. */
  reservedGpuEquivalents: Record<string, number>;
  /** Held monthly cost over all pools, micro-dollars. */
  reservedMonthlyCostMicros: number;
  updatedBy: string;
  updatedAt: string;
}

/** State of an approval. */
export type ApprovalState = 'pending' | 'approved' | 'rejected';

/** What an approval decides on: a new service or a change of a live one. */
export type ApprovalKind = 'create' | 'change';

/** A request waiting for, or decided by, an approver. */
export interface ApprovalRecord {
  id: string;
  serviceId: string;
  reservationId: string;
  team: string;
  kind: ApprovalKind;
  /** Why it needs an approver: as of the request (for why it needs one now, see {@link GpuStore.previewApprovals}). */
  reasons: ApprovalReason[];
  /** For a change: the fields it sets on approval. */
  proposal?: ServiceChange;
  state: ApprovalState;
  requestedBy: string;
  requestedAt: string;
  decidedBy?: string;
  decidedAt?: string;
  comment?: string;
  /**
   * What approving grants beyond quota and budget: as of the request while pending (for what approving now would
   * grant, see {@link GpuStore.previewApprovals}), as granted once approved.
   */
  overage?: ApprovalOverage;
}

/** Input of {@link GpuStore.decideApproval}. */
export interface DecideApprovalInput {
  id: string;
  decision: 'approve' | 'reject';
  /**
   * Entity ref of the person deciding. Never the requester (nor, for a new service, its creator): four eyes. Only
   * users decide: a service principal (`service:...`) or any other non-user actor is refused.
   */
  actor: string;
  comment?: string;
  /**
   * Approve even when the reservation does not fit quota or budget; off unless `true`. Without it an
   * approval that would over-allocate throws a `ConflictError`. Never beyond the pool's physical
   * capacity: that is a `ConflictError` even with it.
   */
  allowOverQuota?: boolean;
}

/** Result of {@link GpuStore.decideApproval}. */
export interface DecideApprovalResult {
  approval: ApprovalRecord;
  service: ServiceRecord;
  reservation: ReservationRecord;
}

/** Subjects of audit events. */
export type AuditSubjectType =
  | 'service'
  | 'reservation'
  | 'approval'
  | 'quota'
  | 'batch-job';

/** One recorded change. */
export interface AuditEvent {
  /** Monotonic id, usable as a paging cursor. */
  id: string;
  at: string;
  actor: string;
  /** e.g. `service.create`, `reservation.release`, `quota.put`. */
  action: string;
  subjectType: AuditSubjectType;
  subjectId: string;
  team?: string;
  before?: JsonObject;
  after?: JsonObject;
}

/** Filters and paging of {@link GpuStore.listAuditEvents}; newest first. */
export interface ListAuditEventsQuery {
  /** One team, or any of several (an empty list matches nothing). */
  team?: string | string[];
  actor?: string;
  action?: string;
  subjectType?: AuditSubjectType;
  subjectId?: string;
  /**
   * Free text, 1 to 100 characters, case-insensitive: events whose actor, action, team or subject id contains it, or
   * about a service whose name contains it.
   */
  search?: string;
  /** Inclusive lower bound, ISO 8601. */
  since?: string;
  /** Exclusive upper bound, ISO 8601. */
  until?: string;
  /** `desc` (newest first) when omitted. */
  order?: SortOrder;
  /** Page size, 1 to 500; 100 when omitted. */
  limit?: number;
  /** `nextCursor` of the previous page, read in the same order. */
  cursor?: string;
}

/** One page of audit events. */
export interface AuditEventPage {
  items: AuditEvent[];
  /** Present when more events match. */
  nextCursor?: string;
  /** Events matching the filters, on every page. */
  totalCount: number;
}

/** Filters, visibility and paging of {@link listServicePage}; newest first. */
export interface ServicePageQuery {
  team?: string;
  status?: ServiceStatus;
  entityRef?: string;
  environment?: string;
  /** Matches the service or team name, case-insensitively. */
  search?: string;
  /** Only services this permission filter allows; all when absent. */
  visibleTo?: PermissionCriteria<GpuServiceQuery>;
  /** 1 to 200; 50 when absent. */
  limit?: number;
  cursor?: string;
}

/** Filters, order, visibility and paging of {@link listApprovalPage}; oldest first (the queue's order) by default. */
export interface ApprovalPageQuery {
  state?: ApprovalState;
  team?: string;
  /** Matches the service or team name, or the requester, case-insensitively. */
  search?: string;
  /** `requestedAt` when absent; ties by approval id. */
  orderBy?: ApprovalOrderBy;
  /** `asc` when absent. */
  order?: SortOrder;
  /** Only approvals of services this permission filter allows; all when absent. */
  visibleTo?: PermissionCriteria<GpuServiceQuery>;
  limit?: number;
  cursor?: string;
}

export type { CountedPage, Page } from './paging';
import type { AuditInput } from './audit';
import type { CountedPage, Page } from './paging';

/**
 * Persistence of the gpu plugin: services, the quota ledger, approvals and the audit
 * trail. Every mutating method runs in one transaction and writes its audit events
 * in it.
 */
export interface GpuStore {
  /**
   * Records a service and reserves its quota atomically. Idempotent on
   * `(team, requestKey)`. Throws `ConflictError` when the request does not fit and
   * the policy rejects, when the key was used for a different request, or when a live
   * service of that name exists in the namespace.
   */
  createServiceWithReservation(
    input: CreateServiceInput,
  ): Promise<CreateServiceResult>;

  getService(id: string): Promise<ServiceRecord | undefined>;

  /**
   * Confirms a provisional service (see {@link CreateServiceInput.confirmBy}); a confirmed one is returned as it is.
   * Throws `ConflictError` when it is being deleted or deleted, `NotFoundError` when unknown. When the service has a
   * pending change ({@link ReplaceReservationInput.pendingChange}), confirms that change instead: with `pullRequest`
   * it follows that request from then on, without one it is kept.
   */
  confirmService(input: {
    id: string;
    actor: string;
    /** GitOps: the pull request that delivers it; the reservation then follows it until `mergeBy`. */
    pullRequest?: { url: string; number: number; mergeBy: Date };
  }): Promise<ServiceRecord>;

  /**
   * Records what the forge says of a service's open pull request (`merged`, `closed`, `expired`), audited as
   * `service.pull-request`; conditional on it still being `open` (undefined when it no longer is).
   */
  settlePullRequest(input: {
    id: string;
    state: Exclude<PullRequestState, 'open'>;
    actor: string;
  }): Promise<ServiceRecord | undefined>;

  /** Services whose pull request is open (whatever their status), oldest deadline first: what the follower reads. */
  listOpenPullRequests(): Promise<ServiceRecord[]>;

  /** The change of the service that is pending until its pull request is merged, if any. */
  getPendingChange(serviceId: string): Promise<ServiceChangeRecord | undefined>;

  /** Every pending change (of any service), oldest first: what the follower and the confirmation expiry read. */
  listPendingChanges(): Promise<ServiceChangeRecord[]>;

  /**
   * Keeps a pending change (`merged`: its request was merged; `withdrawn`: the service was deleted meanwhile), audited
   * as `service.change-request`; conditional on it still being pending (undefined otherwise).
   */
  settleChange(input: {
    changeId: string;
    state: 'merged' | 'withdrawn';
    actor: string;
  }): Promise<ServiceChangeRecord | undefined>;

  /**
   * Rolls a pending change back in one transaction: the service's spec, manifests, cluster and status as they were
   * before it (a new generation, with `reason`), the reservation it holds released and the one it held before held
   * again with the same pool and amounts, and the change recorded `state`. Undefined when it is no longer pending or
   * the service is being deleted or deleted.
   */
  rollBackChange(input: {
    changeId: string;
    state: 'closed' | 'expired' | 'unconfirmed';
    reason: ServiceReason;
    statusReason: string;
    actor: string;
  }): Promise<
    { service: ServiceRecord; change: ServiceChangeRecord } | undefined
  >;

  /** Provisional services not confirmed by `before` and not being deleted yet: what expires. */
  listUnconfirmedServices(before: Date): Promise<ServiceRecord[]>;

  /** Newest first. */
  listServices(filter?: ListServicesFilter): Promise<ServiceRecord[]>;

  /**
   * {@link GpuStore.listServices} with every service's reservations and approvals, in three queries whatever the
   * number of services (the list view).
   */
  listServicesWithReservations(
    filter?: ListServicesFilter,
  ): Promise<ServiceListing[]>;

  /** Sets the status (and optionally manifests); throws `NotFoundError` / `ConflictError`. */
  updateServiceStatus(input: UpdateServiceStatusInput): Promise<ServiceRecord>;

  /**
   * Releases the service's held or pending reservation. Idempotent: returns the
   * released reservation the first time and `undefined` when nothing was left to
   * release.
   */
  releaseReservation(input: {
    serviceId: string;
    actor: string;
  }): Promise<ReservationRecord | undefined>;

  /**
   * Changes a live service and re-reserves its quota atomically: the new amount
   * must fit with the old reservation given back. Over quota and rejected by policy:
   * `ConflictError`, nothing changes.
   */
  replaceReservation(
    input: ReplaceReservationInput,
  ): Promise<ReplaceReservationResult>;

  /**
   * GitOps: retries a service whose pull request was closed without merging, not merged in time or never confirmed
   * (status `deleted`): weighed again by admission as a creation is, a new reservation held, the spec and manifests
   * rendered again recorded, `approved` again awaiting its new pull request's confirmation by `confirmBy`.
   * `ConflictError`, nothing written or held, when it cannot be retried so, its name is taken by a live service, or
   * admission refuses it or would make it wait for an approver.
   */
  retryPullRequest(
    input: RetryPullRequestInput,
  ): Promise<RetryPullRequestResult>;

  /** Reservations of a service, newest first. */
  listReservations(serviceId: string): Promise<ReservationRecord[]>;

  getQuota(team: string): Promise<QuotaRecord | undefined>;

  /**
   * The team's {@link TeamLedger}, answered from the last read while no transaction of this store that may have
   * changed it (any but a create of another team) has ended since that read started and it is at most `maxAgeMs` old
   * (writes by other backend replicas show after that long).
   * Concurrent calls share one read. For quotes, which are advisory: admission re-checks in its transaction. The
   * ledger is shared; do not change it. Undefined when the team has no quota.
   */
  getLedgerSnapshot(
    team: string,
    maxAgeMs: number,
  ): Promise<TeamLedger | undefined>;

  /**
   * The team's spend this calendar month (UTC) from the ledger at the pools' prices: month-to-date, and what it
   * holds projected to the end of the month. Cached like {@link GpuStore.getLedgerSnapshot} (for quotes; admission
   * reads it again in its transaction).
   */
  getMonthSpendSnapshot(team: string, maxAgeMs: number): Promise<MonthSpend>;
  /**
   * What every team holds on each pool, in GPU units (per MIG profile too), for quotes: cached like
   * {@link GpuStore.getLedgerSnapshot}, and after creates only the pools they held on are read again; admission
   * reads it again in its transaction, under the pool's lock.
   */
  getPoolHeldSnapshot(maxAgeMs: number): Promise<Record<string, PoolHeldUnits>>;

  /** Every team that has a quota, by team name. */
  listQuotas(): Promise<QuotaRecord[]>;

  /** Every stored allowance (integer GPU units and micro-dollars), by team name. */
  listAllowances(): Promise<TeamAllowance[]>;

  /** Replaces a team's quota. Lowering it below what is held is allowed. */
  putQuota(input: {
    team: string;
    quota: QuotaSpec;
    actor: string;
  }): Promise<QuotaRecord>;

  /** Oldest first. */
  listApprovals(filter?: {
    state?: ApprovalState;
    team?: string;
    serviceId?: string;
  }): Promise<ApprovalRecord[]>;

  getApproval(id: string): Promise<ApprovalRecord | undefined>;

  /**
   * The approvals with each pending one weighed again now, as admission weighs a request: its `reasons` why it needs
   * an approver now (a quota or budget raised since the request drops its over-quota or over-budget reasons) and its
   * `overage`, what approving it now would grant beyond quota and budget, against the current quotas and budgets,
   * what the team and the pool hold now, this month's spend and the environment's policy; read once for all the
   * approvals (a few queries, not a few per approval). Decided ones as recorded (the list and get methods answer
   * every approval as recorded).
   */
  previewApprovals(approvals: ApprovalRecord[]): Promise<ApprovalRecord[]>;

  /**
   * Approving holds the reservation; rejecting releases it. Throws `NotAllowedError` when the actor requested it
   * (or created the service) or is not a user, `ConflictError` when it is no longer pending, when approving would
   * exceed the pool's physical capacity, or when it is over quota or budget without `allowOverQuota`.
   */
  decideApproval(input: DecideApprovalInput): Promise<DecideApprovalResult>;

  listAuditEvents(query?: ListAuditEventsQuery): Promise<AuditEventPage>;

  /** Records a change made outside the store (a batch job submitted to the cluster) in the audit trail. */
  recordAuditEvent(event: AuditInput): Promise<void>;

  /** One page of services with their ledger entries and approvals, filtered and narrowed to what a caller may see. */
  listServicePage(query: ServicePageQuery): Promise<Page<ServiceListing>>;

  /** One page of approvals, filtered and narrowed to the services a caller may see. */
  listApprovalPage(
    query: ApprovalPageQuery,
  ): Promise<CountedPage<ApprovalRecord>>;

  /** Replaces the cluster's last Kueue reconciliation report. */
  putClusterDrift(report: ClusterDriftReport): Promise<void>;

  /** The last Kueue reconciliation report of every cluster, by name. */
  listClusterDrift(): Promise<ClusterDriftReport[]>;

  /**
   * Weighs a batch job against its team's free quota and budget on the pool and, outside a dry run, records it with
   * its held reservation, atomically (the locks of a service's create). Throws `ConflictError` when fewer than its
   * `minParallelism` pods fit or the budget does not hold it.
   */
  reserveBatchJob(input: ReserveBatchJobInput): Promise<BatchJobReservation>;

  /** Releases an active batch job's reservation; undefined when it was not active. */
  releaseBatchJob(input: {
    id: string;
    reason: string;
    actor: string;
    /** Its apply failed: released as of when it was held (it never held GPUs). */
    rolledBack?: boolean;
    /** When its Job finished, as its cluster says: released as of then (not before it was held, not after now). */
    at?: Date;
  }): Promise<BatchJobRecord | undefined>;

  /** Batch jobs whose reservations count, oldest first. */
  listActiveBatchJobs(): Promise<BatchJobRecord[]>;

  /**
   * Records the MultiKueue worker cluster an active batch job runs on and moves its reservation to that worker's
   * `pool` (audited as `batch-job.place`); undefined when it is not active or already placed there.
   */
  placeBatchJob(input: {
    id: string;
    workerCluster: string;
    pool: string;
    /** The new pool's price of one GPU for a month: the reservation's monthly cost is counted at it. */
    monthlyCostMicrosPerGpu: number;
    actor: string;
  }): Promise<BatchJobRecord | undefined>;

  /**
   * Batch jobs (optionally of one team, optionally only those whose reservation overlaps [from, to)) with the
   * reservations they held at some point.
   */
  listBatchJobAllocations(filter?: {
    team?: string;
    overlapping?: { from: Date; to: Date };
  }): Promise<
    Array<{ batchJob: BatchJobRecord; reservations: ReservationRecord[] }>
  >;
}
