import {
  ClusterMode,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

const STATUS_WORDS: Record<ServiceStatus, string> = {
  'pending-approval': 'waiting for approval',
  approved: 'approved',
  applying: 'being applied',
  starting: 'starting',
  ready: 'ready',
  failed: 'failed',
  rejected: 'rejected',
  deleting: 'being removed',
  deleted: 'removed',
};

const MODE_WORDS: Record<ClusterMode, string> = {
  apply: 'Backstage applies it to the cluster',
  gitops: 'delivered through a pull request to the GitOps repository',
  'dry-run': 'rendered only: no cluster is configured',
};

/** A delivery mode in words for a template's result, e.g. "rendered only: no cluster is configured" for `dry-run`. */
export function describeMode(mode: ClusterMode): string {
  return MODE_WORDS[mode];
}

/** A service's status and delivery mode in words for a template's result, e.g. "waiting for approval (Backstage applies it to the cluster)". */
export function describeServiceState(
  status: ServiceStatus,
  mode: ClusterMode,
): string {
  return `${STATUS_WORDS[status]} (${describeMode(mode)})`;
}
