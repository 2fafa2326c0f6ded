import { Platform, SharingTier } from '../platform/types';
import { Placement, ServiceRequest } from '../service/types';

/** How the backend treats a cluster: apply for real, hand manifests to GitOps, or only render and store. */
export type ClusterMode = 'apply' | 'gitops' | 'dry-run';

/** A cluster the gpu backend deploys to, as the API reports it. */
export interface ClusterSummary {
  name: string;
  mode: ClusterMode;
}

/** Response of `GET /api/gpu/platform`: everything the form, the cards and the governance page need. */
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

/** Body of `POST /api/gpu/services`. */
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
}

/** Body of `PATCH /api/gpu/services/:id`: the fields that may change. */
export interface UpdateServiceBody {
  tier?: SharingTier;
  pool?: string;
  replicas?: number;
  model?: string;
}

/** A pending or decided approval as the API shows it. */
export interface ApprovalView {
  id: string;
  serviceId: string;
  team: string;
  /** What is decided: a new service, or a change (tier, pool, replicas, model) of a live one. */
  kind: 'create' | 'change';
  state: 'pending' | 'approved' | 'rejected';
  reasons: { code: string; message: string }[];
  requestedBy: string;
  requestedAt: string;
  decidedBy?: string;
  decidedAt?: string;
  comment?: string;
}

/** A GPU model service as the API returns it. */
export interface GpuServiceView {
  id: string;
  name: string;
  team: string;
  namespace: string;
  entityRef?: string;
  environment: string;
  status: ServiceStatus;
  statusReason?: string;
  request: ServiceRequest;
  placement: Placement;
  /** GPU-equivalents reserved for all replicas. */
  gpuEquivalents: number;
  /** Projected monthly allocation cost, USD with cents, e.g. `"587.50"`. */
  monthlyCost: string;
  cluster?: string;
  mode: ClusterMode;
  /** In-cluster URL of the service's OpenAI-compatible (vLLM) or Ollama endpoint. */
  endpoint: string;
  /** Entity annotations that tie a catalog Component to this service. */
  annotations: Record<string, string>;
  approval?: ApprovalView;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}
