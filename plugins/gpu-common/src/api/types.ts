import { Platform, SharingTier } from '../platform/types';
import { Placement, ServiceRequest } from '../service/types';
import type { ServiceCondition, ServiceReason } from './conditions';

/**
 * How the backend treats a cluster: apply for real, hand manifests to GitOps, or only render and store.
 *
 * @public
 */
export type ClusterMode = 'apply' | 'gitops' | 'dry-run';

/**
 * A cluster the gpu backend deploys to, as the API reports it.
 *
 * @public
 */
export interface ClusterSummary {
  name: string;
  mode: ClusterMode;
  /** `gpu.clusters[].labels`; absent when none is set. */
  labels?: ClusterLabels;
}

/**
 * Where a cluster is and what it is for (`gpu.clusters[].labels`), for filtering and for people choosing an option.
 *
 * @public
 */
export interface ClusterLabels {
  /** e.g. `eu-west-1`. */
  region?: string;
  /** e.g. `aws`, `azure`, `gcp`. */
  cloud?: string;
  /** e.g. `production`, `non-production`. */
  environmentClass?: string;
}

/**
 * Response of `GET /api/gpu/platform`: everything the form, the cards and the governance page need.
 *
 * @public
 */
export interface PlatformResponse {
  platform: Platform;
  clusters: ClusterSummary[];
}

/**
 * Lifecycle of a GPU model service: `pending-approval` (waits for an approver) or `approved` (quota held; in
 * dry-run and GitOps mode the manifests are stored), then in apply mode `applying` (server-side applies in
 * flight), `starting` (applied; the Deployment is not available yet, e.g. waiting for Kueue admission or for its
 * pods to become ready) and `ready` (the Deployment is available); `ready` goes back to `starting` when availability
 * is lost. `failed` (an apply or a teardown failed; quota held), `rejected`, `deleting` and `deleted` (quota
 * released).
 *
 * @public
 */
export type ServiceStatus =
  | 'pending-approval'
  | 'approved'
  | 'applying'
  | 'starting'
  | 'ready'
  | 'failed'
  | 'rejected'
  | 'deleting'
  | 'deleted';

/**
 * Body of `POST /api/gpu/services`.
 *
 * @public
 */
export interface CreateServiceBody {
  request: ServiceRequest;
  /** Catalog entity the service belongs to, e.g. `component:default/summariser`. */
  entityRef?: string;
  /** Idempotency key chosen by the caller; a retry with the same key returns the first service. */
  requestKey?: string;
  /**
   * `gitops`: record and render the service but never apply it (a GitOps controller applies the published
   * manifests); honoured on every cluster, since it asks Backstage to do less. Omitted: the cluster's mode.
   */
  mode?: 'gitops';
  /** Validate, quote and render only: answers what would be created (`id` is `dry-run`), stores nothing. */
  dryRun?: boolean;
  /**
   * Record the service provisionally: unless `POST /services/:id/confirm` confirms it within the backend's
   * `gpu.services.confirmWithin`, it is deleted and its quota released. A template run asks for this and confirms in
   * its last step, so a run that fails half-way leaves nothing reserved.
   */
  provisional?: boolean;
}

/**
 * Body of `PATCH /api/gpu/services/:id`: the fields that may change.
 *
 * @public
 */
export interface UpdateServiceBody {
  tier?: SharingTier;
  pool?: string;
  replicas?: number;
  model?: string;
  /**
   * Weigh the change as admission would, without the service's own current reservation, and answer what would be
   * recorded (the new spec, its manifests, the reservation, and the approval it would wait for); nothing is changed,
   * reserved or applied.
   */
  dryRun?: boolean;
  /**
   * GitOps: the change is pending until its pull (merge) request is merged. The spec, status and reservation the
   * service had are kept, and restored when the request is closed unmerged, not merged within
   * `gpu.gitops.mergeWithin`, or not recorded by `POST /services/:id/confirm` (with its `pullRequestUrl`) within
   * `gpu.services.confirmWithin`. Another change is refused (409) while one is pending.
   */
  provisional?: boolean;
}

/**
 * A pending or decided approval as the API shows it.
 *
 * @public
 */
export interface ApprovalView {
  id: string;
  serviceId: string;
  team: string;
  /** What is decided: a new service, or a change (tier, pool, replicas, model) of a live one. */
  kind: 'create' | 'change';
  state: 'pending' | 'approved' | 'rejected';
  /**
   * Why it needs an approver: `code` to switch on (`over-quota`, `over-budget`, `over-budget-this-month`,
   * `spot-in-production`, `over-pool-capacity`, `policy`), `message` for people. A pending approval (in
   * `GET /approvals`, and a service's in `GET /services`, `GET /services/{id}` and the answers of its writes) gives why
   * it needs one now, weighed again on the current quotas, budgets, spend, pool capacity and policy (a quota raised
   * since the request drops its `over-quota` reason; none once nothing holds it back); the audit trail's
   * `approval.request` event keeps the reasons recorded with the request. A decided approval as recorded.
   */
  reasons: { code: string; message: string }[];
  requestedBy: string;
  requestedAt: string;
  decidedBy?: string;
  decidedAt?: string;
  comment?: string;
  /**
   * What approving grants beyond the team's quota and budget: for a pending approval what approving it now would
   * grant, for an approved one what was granted at the decision. Absent on approvals recorded before it existed.
   */
  overage?: ApprovalOverage;
}

/**
 * The team's quota on the pool an approval holds GPUs in, and what approving takes beyond it.
 *
 * @public
 */
export interface PoolOverage {
  pool: string;
  /** The team's quota on the pool (0 without one). */
  quotaGpuEquivalents: number;
  /** Held by the team on the pool besides this request (for a change: without the reservation it replaces). */
  heldGpuEquivalents: number;
  /** What the request holds. */
  requestedGpuEquivalents: number;
  /** What the request takes beyond the quota: the smaller of requested and held + requested - quota; 0 when it fits. */
  overGpuEquivalents: number;
  /** The monthly cost of `overGpuEquivalents` (their share of the request's monthly cost), micro-dollars. */
  overMonthlyCostMicros: number;
  /** Physical capacity of the pool (nodes x GPUs per node; for MIG the GPU-equivalents of the layout's slots). */
  capacityGpuEquivalents: number;
  /** Held on the pool by every team besides this request. */
  poolHeldGpuEquivalents: number;
}

/**
 * The team's monthly budget against an approval: on run-rate (monthly cost held) and on month-to-date spend.
 *
 * @public
 */
export interface BudgetOverage {
  monthlyBudgetMicros: number;
  /** Monthly cost the team holds besides this request. */
  committedMonthlyCostMicros: number;
  /** Run-rate the request takes beyond the budget: the smaller of its cost and committed + cost - budget; 0 when it fits. */
  overMonthlyCostMicros: number;
  /** The calendar month (UTC), `yyyy-MM`. */
  month: string;
  /** Spent since the start of the month by every reservation of the team, at the pools' prices. */
  monthToDateMicros: number;
  /** Month-to-date + what the team holds and the request until the end of the month. */
  projectedMonthMicros: number;
  /** What the request's rest of the month takes beyond the budget; 0 when the projection fits. */
  overProjectedMicros: number;
}

/**
 * What an approval grants beyond quota and budget, in GPUs and dollars (money in integer micro-dollars).
 *
 * @public
 */
export interface ApprovalOverage {
  /** When the figures were computed: the request, the read of a pending approval, or the decision. */
  computedAt: string;
  /** Whether it goes beyond the team's GPU quota or its budget (then approving needs `allowOverQuota: true`). */
  overQuota: boolean;
  /** The request's projected monthly cost. */
  monthlyCostMicros: number;
  /** Per pool the request holds GPUs in. */
  pools: PoolOverage[];
  budget: BudgetOverage;
}

/**
 * A GPU model service as the API returns it.
 *
 * @public
 */
export interface GpuServiceView {
  id: string;
  name: string;
  team: string;
  namespace: string;
  entityRef?: string;
  environment: string;
  /** The summary of {@link GpuServiceView.conditions}. */
  status: ServiceStatus;
  /** Why it has its status: the code to switch on. */
  reason: ServiceReason;
  /**
   * The same in words, for people; never parsed. A service waiting for approval to be created says why it needs an
   * approver now, as its `approval`'s reasons do (the audit trail's `service.create` event keeps the recorded words).
   */
  statusReason?: string;
  /** Spec generation: 1 at creation, one more at every accepted change. */
  generation: number;
  /** The generation last applied to the cluster; absent when nothing was applied. */
  observedGeneration?: number;
  /** Kubernetes-style conditions: Reserved, Approved, Applied, Available, Deleting, Moving. */
  conditions: ServiceCondition[];
  request: ServiceRequest;
  placement: Placement;
  /** GPU-equivalents reserved for all replicas. */
  gpuEquivalents: number;
  /** Projected monthly allocation cost, USD with cents, e.g. `"587.50"`. */
  monthlyCost: string;
  cluster?: string;
  /**
   * While the service moves to `cluster`: the cluster it leaves. Its objects there keep serving until it is available
   * on `cluster`, then they are removed and this is cleared (see the `Moving` condition).
   */
  movingFrom?: string;
  mode: ClusterMode;
  /**
   * In-cluster URL of the service's OpenAI-compatible (vLLM) or Ollama endpoint. For a service that scales to zero
   * through KEDA's HTTP add-on, the add-on interceptor's URL: a request there wakes the service (send it with
   * `Host: <endpointHost>`, which the interceptor routes by).
   */
  endpoint: string;
  /** The `Host` header the endpoint routes by, when it is the HTTP add-on's interceptor. */
  endpointHost?: string;
  /** Entity annotations that tie a catalog Component to this service. */
  annotations: Record<string, string>;
  approval?: ApprovalView;
  /**
   * Set while the service is provisional: when it is deleted and its quota released unless it is confirmed (the
   * template run that created it has not finished). Kept on a service deleted because nobody confirmed it.
   */
  confirmBy?: string;
  /** GitOps: the pull (merge) request that delivers it, which its reservation follows. */
  pullRequest?: GpuServicePullRequest;
  /**
   * GitOps: a change waiting for its pull (merge) request to be merged. Its spec is already the service's (`request`,
   * `placement`, `cluster`); until the merge the cluster runs `pendingChange.previous`, which a closed, expired or
   * unconfirmed request restores.
   */
  pendingChange?: GpuServicePendingChange;
  /**
   * GitOps: on a deleted service, how its pull (merge) request ended when a new request may retry it (the service's
   * `retry` route); absent on every other service, one decommissioned on purpose included.
   */
  retriableEnd?: RetriablePullRequestEnd;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Body of `POST /services/{id}/confirm`.
 *
 * @public
 */
export interface ConfirmServiceBody {
  /**
   * GitOps: web address of the pull (merge) request that delivers the service, on a host of `integrations`; its
   * reservation then follows that request.
   */
  pullRequestUrl?: string;
}

/**
 * Where a GitOps service's pull (merge) request stands, as the backend last read it from the forge: `open` holds the
 * reservation until `mergeBy`; `merged` keeps it; `closed` (closed without merging) and `expired` (not merged by
 * `mergeBy`, closed by the backend) released it.
 *
 * @public
 */
export type PullRequestState = 'open' | 'merged' | 'closed' | 'expired';

/**
 * How a GitOps service's pull (merge) request ended when a new request may retry the service: `closed` without
 * merging, `expired` (not merged in time), or `unconfirmed` (the template run that was to open it stopped before it
 * recorded it, and the service was deleted when its `confirmBy` passed).
 *
 * @public
 */
export type RetriablePullRequestEnd = 'closed' | 'expired' | 'unconfirmed';

/**
 * What a GitOps change sets (or set before it): the fields a change may alter.
 *
 * @public
 */
export interface GpuServiceChangeSpec {
  tier: SharingTier;
  pool: string;
  cluster?: string;
  model: string;
  replicas: number;
}

/**
 * A change of a GitOps service pending until its pull (merge) request is merged.
 *
 * @public
 */
export interface GpuServicePendingChange {
  /** The spec generation the change produced (the service's `generation` while it is pending). */
  generation: number;
  /** The request that delivers it, once the template run recorded it; `mergeBy`: when it expires unless merged. */
  pullRequest?: { url: string; number: number; mergeBy?: string };
  /** Until its request is recorded: when the change is rolled back unless it is (ISO 8601). */
  confirmBy?: string;
  createdBy: string;
  createdAt: string;
  /** The spec before the change: what Git's main branch holds and the cluster runs until the merge. */
  previous: GpuServiceChangeSpec;
  /** The spec the change proposes. */
  proposed: GpuServiceChangeSpec;
}

/**
 * The pull (merge) request of a GitOps service.
 *
 * @public
 */
export interface GpuServicePullRequest {
  /** Its web address. */
  url: string;
  /** Its number on the forge (the merge request's iid on GitLab). */
  number: number;
  state: PullRequestState;
  /** While open: when it expires unless merged (ISO 8601). */
  mergeBy?: string;
}
