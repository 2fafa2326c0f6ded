import {
  ClusterMode,
  ServiceStatus,
  serviceStatusInWords,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A service's typed status in words for the card's line and the summary card, with `(dry run, no cluster)` when its
 * cluster is a dry run: `waiting for approval (dry run, no cluster)`, not the status and mode keys
 * (`pending-approval (dry-run)`).
 */
export function describeServiceState(
  status: ServiceStatus,
  mode: ClusterMode,
): string {
  const words = serviceStatusInWords(status);
  return mode === 'dry-run' ? `${words} (dry run, no cluster)` : words;
}
