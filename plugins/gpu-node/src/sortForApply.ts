import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Kinds in the order they are applied: cluster-level configuration and Kueue quota objects first, then the team's
 * LocalQueue, then the workload (storage and network before the Deployment, its guards and scalers after it).
 */
const APPLY_ORDER = [
  'Namespace',
  'ConfigMap',
  'ResourceFlavor',
  'Cohort',
  'WorkloadPriorityClass',
  'ClusterQueue',
  'LocalQueue',
  'PersistentVolumeClaim',
  'Service',
  'ResourceClaimTemplate',
  'Deployment',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
  'ScaledObject',
];

function kindRank(kind: string | undefined): number {
  const index = APPLY_ORDER.indexOf(kind ?? '');
  return index >= 0 ? index : APPLY_ORDER.length;
}

function compareText(a: string, b: string): number {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/**
 * A copy of `objects` in apply order: by kind (platform, then team, then workload kinds; unknown kinds last, by
 * name), then namespace, then name. Deletion should use the reverse.
 *
 * @public
 */
export function sortForApply<T extends KubernetesObject>(objects: T[]): T[] {
  return [...objects].sort(
    (a, b) =>
      kindRank(a.kind) - kindRank(b.kind) ||
      compareText(a.kind ?? '', b.kind ?? '') ||
      compareText(a.metadata?.namespace ?? '', b.metadata?.namespace ?? '') ||
      compareText(a.metadata?.name ?? '', b.metadata?.name ?? ''),
  );
}
