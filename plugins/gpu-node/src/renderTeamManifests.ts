import type { KubernetesObject } from '@kubernetes/client-node';
import { findTeam, Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { renderLocalQueue } from './kueue/renderLocalQueue';
import { sortForApply } from './sortForApply';
import { stableObject } from './stableObject';

/**
 * What a team needs in its own namespaces: one Kueue LocalQueue per namespace, pointing at the team's ClusterQueue.
 * The namespaces themselves belong to the team and are not rendered.
 *
 * @public
 */
export function renderTeamManifests(
  platform: Platform,
  teamName: string,
): KubernetesObject[] {
  const team = findTeam(platform, teamName);
  const namespaces = [...new Set(team.namespaces)];
  return sortForApply(
    namespaces.map(namespace =>
      stableObject(renderLocalQueue(platform, team, namespace)),
    ),
  );
}
