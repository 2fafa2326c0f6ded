import { Platform } from '@internal/backstage-plugin-gpu-common';
import {
  renderPlatformManifests,
  renderTeamManifests,
} from '@internal/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { QuotaRecord } from '../database';
import { withStoredQuota } from '../services/effectiveTeamQuota';

const KUEUE_GROUP = 'kueue.x-k8s.io/';

/**
 * The Kueue objects of the platform in apply order: ResourceFlavors, the Cohort, WorkloadPriorityClasses, one
 * ClusterQueue per team with its nominal quota from the stored quota (which overrides app-config), then every
 * team's LocalQueues. The GPU Operator ConfigMaps the platform also renders are left to whoever installs the operator.
 */
export function renderKueueObjects(
  platform: Platform,
  quotas: QuotaRecord[],
): KubernetesObject[] {
  const effective = quotas.reduce(withStoredQuota, platform);
  return [
    ...renderPlatformManifests(effective).filter(object =>
      object.apiVersion?.startsWith(KUEUE_GROUP),
    ),
    ...effective.teams.flatMap(team =>
      renderTeamManifests(effective, team.name),
    ),
  ];
}
