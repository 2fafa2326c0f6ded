import {
  Platform,
  PlatformOperations,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  renderPlatformManifests,
  renderTeamManifests,
} from '@gpu-platform/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Every object the platform delivers to a cluster, in apply order: the GPU Operator's device-plugin and MIG Manager
 * ConfigMaps, the Kueue objects (ResourceFlavors, Cohort, WorkloadPriorityClasses, one ClusterQueue per team with its
 * stored allowance), the Karpenter NodePools and alert PrometheusRules of `operations`, then every team's
 * LocalQueues. The reconciler applies this set in apply mode; GitOps exports write the same set as files.
 */
export function renderPlatformObjects(
  platform: Platform,
  allowances: readonly TeamAllowance[],
  operations?: PlatformOperations,
): KubernetesObject[] {
  return [
    ...renderPlatformManifests(platform, { allowances, operations }),
    ...platform.teams.flatMap(team => renderTeamManifests(platform, team.name)),
  ];
}
