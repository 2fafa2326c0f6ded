import { Platform, TeamQuota } from '@gpu-platform/backstage-plugin-gpu-common';
import { ownershipLabels } from '../labels';
import { clusterQueueName, localQueueName } from '../names/queueNames';
import { LocalQueue } from './types';

/** The LocalQueue in one of a team's namespaces, pointing at the team's ClusterQueue. */
export function renderLocalQueue(
  platform: Platform,
  team: TeamQuota,
  namespace: string,
): LocalQueue {
  return {
    apiVersion: platform.kueue.apiVersion,
    kind: 'LocalQueue',
    metadata: {
      name: localQueueName(team.name),
      namespace,
      labels: ownershipLabels('team', { team: team.name }),
    },
    spec: { clusterQueue: clusterQueueName(team.name) },
  };
}
