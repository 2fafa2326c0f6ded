import { NotFoundError } from '@backstage/errors';
import {
  Platform,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  OWNERSHIP_LABELS,
  renderPlatformManifests,
  renderTeamManifests,
} from '@gpu-platform/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { renderPlatformObjects } from './renderPlatformObjects';

const KUEUE_GROUP = 'kueue.x-k8s.io/';

/**
 * The Kueue objects of the platform in apply order: ResourceFlavors, the Cohort, WorkloadPriorityClasses, one
 * ClusterQueue per team with its nominal quota from the stored allowance (which overrides app-config), then every
 * team's LocalQueues: the part of {@link renderPlatformObjects} a service apply may need (see
 * {@link renderTeamQueueDependencies}); the reconciler delivers the rest of the platform objects.
 */
export function renderKueueObjects(
  platform: Platform,
  allowances: TeamAllowance[],
): KubernetesObject[] {
  return [
    ...renderPlatformManifests(platform, { allowances }).filter(object =>
      object.apiVersion?.startsWith(KUEUE_GROUP),
    ),
    ...platform.teams.flatMap(team => renderTeamManifests(platform, team.name)),
  ];
}

/**
 * The platform objects one team's workloads need before they can be admitted, exactly as
 * {@link renderKueueObjects} renders them (stored quota included), in apply order: the ResourceFlavors the team's
 * ClusterQueue lists, the Cohort, the WorkloadPriorityClasses and the team's ClusterQueue. They carry the platform
 * ownership labels only, so deleting a service by its ownership label never removes them.
 */
export function renderTeamQueueDependencies(
  platform: Platform,
  allowances: TeamAllowance[],
  team: string,
): KubernetesObject[] {
  const platformObjects = renderKueueObjects(platform, allowances).filter(
    object => labelOf(object, OWNERSHIP_LABELS.scope) === 'platform',
  );
  const queue = platformObjects.find(
    object =>
      object.kind === 'ClusterQueue' &&
      labelOf(object, OWNERSHIP_LABELS.team) === team,
  );
  if (!queue) {
    throw new NotFoundError(`No ClusterQueue is rendered for team ${team}`);
  }
  const flavors = new Set(flavorsOf(queue));
  return platformObjects.filter(object => {
    if (object.kind === 'ClusterQueue') return object === queue;
    if (object.kind === 'ResourceFlavor') {
      return flavors.has(object.metadata?.name ?? '');
    }
    return true;
  });
}

function labelOf(object: KubernetesObject, key: string): string | undefined {
  return object.metadata?.labels?.[key];
}

function flavorsOf(clusterQueue: KubernetesObject): string[] {
  const spec = (
    clusterQueue as {
      spec?: { resourceGroups?: { flavors?: { name: string }[] }[] };
    }
  ).spec;
  return (spec?.resourceGroups ?? []).flatMap(group =>
    (group.flavors ?? []).map(flavor => flavor.name),
  );
}
