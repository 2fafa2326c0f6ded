import type { ClusterMode, ServiceStatus } from '../api/types';

const STATUS_WORDS: Record<ServiceStatus, string> = {
  'pending-approval': 'waiting for approval',
  approved: 'approved',
  applying: 'being applied',
  starting: 'starting',
  ready: 'ready',
  failed: 'failed',
  rejected: 'rejected',
  deleting: 'being deleted',
  deleted: 'deleted',
};

/**
 * A service's typed status in words for people (`waiting for approval`, not the key `pending-approval`): what the
 * entity card, the governance page and the templates' results print.
 *
 * @public
 */
export function serviceStatusInWords(status: ServiceStatus): string {
  return STATUS_WORDS[status] ?? String(status);
}

const MODE_WORDS: Record<ClusterMode, string> = {
  apply: 'Backstage applies it to the cluster',
  gitops: 'delivered through a pull request to the GitOps repository',
  'dry-run': 'rendered only: no cluster is configured',
};

/**
 * How a service reaches its cluster, in words (`rendered only: no cluster is configured`, not the key `dry-run`).
 *
 * @public
 */
export function clusterModeInWords(mode: ClusterMode): string {
  return MODE_WORDS[mode] ?? String(mode);
}
