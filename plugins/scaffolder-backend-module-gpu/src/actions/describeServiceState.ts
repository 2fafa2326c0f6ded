import {
  ClusterMode,
  clusterModeInWords,
  ServiceStatus,
  serviceStatusInWords,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** A service's status and delivery mode in words for a template's result, e.g. "waiting for approval (Backstage applies it to the cluster)". */
export function describeServiceState(
  status: ServiceStatus,
  mode: ClusterMode,
): string {
  return `${serviceStatusInWords(status)} (${clusterModeInWords(mode)})`;
}
