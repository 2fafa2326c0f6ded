import { stableName } from './stableName';

/**
 * Name of a team's Kueue ClusterQueue: `gpu-<team>` (the OCR batch case names the batch team's queue `gpu-batch`).
 *
 * @public
 */
export function clusterQueueName(team: string): string {
  return stableName(['gpu', team]);
}

/**
 * Name of the LocalQueue in each of a team's namespaces; services set it as `kueue.x-k8s.io/queue-name`.
 *
 * @public
 */
export function localQueueName(team: string): string {
  return stableName(['gpu', team]);
}
