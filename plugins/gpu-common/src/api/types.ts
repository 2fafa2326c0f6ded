import { Platform } from '../platform/types';

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

/** Lifecycle of a GPU model service. */
export type ServiceStatus =
  | 'pending-approval'
  | 'approved'
  | 'applying'
  | 'ready'
  | 'failed'
  | 'rejected'
  | 'deleting'
  | 'deleted';
