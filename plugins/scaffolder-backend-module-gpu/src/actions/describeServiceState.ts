import {
  ClusterMode,
  ServiceStatus,
  serviceStatusInWords,
} from '@gpu-platform/backstage-plugin-gpu-common';

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
  return `${serviceStatusInWords(status)} (${describeMode(mode)})`;
}
