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
  deleting: 'being deleted',
  deleted: 'deleted',
};

/**
 * A service's typed status in words for the card's line and the summary card, with `(dry run, no cluster)` when its
 * cluster is a dry run: `waiting for approval (dry run, no cluster)`, not the status and mode keys
 * (`pending-approval (dry-run)`).
 */
export function describeServiceState(
  status: ServiceStatus,
  mode: ClusterMode,
): string {
  const words = STATUS_WORDS[status] ?? String(status);
  return mode === 'dry-run' ? `${words} (dry run, no cluster)` : words;
}
