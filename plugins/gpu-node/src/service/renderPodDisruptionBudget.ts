import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ServiceContext } from './resolveServiceContext';
import { serviceObjectNames } from './serviceNames';
import { selectorLabels, serviceLabels } from './serviceLabels';

/**
 * The PodDisruptionBudget of a service in an environment that asks for one: with two or more replicas at least,
 * evictions take one pod at a time; with one, the pod is not evicted voluntarily while healthy (unhealthy pods
 * never block a drain).
 */
export function renderPodDisruptionBudget(
  context: ServiceContext,
): V1PodDisruptionBudget | undefined {
  if (!context.environment.podDisruptionBudget) {
    return undefined;
  }
  const { request } = context;
  const fewest = request.autoscaling
    ? request.autoscaling.minReplicas
    : request.replicas;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: serviceObjectNames(request.name).podDisruptionBudget,
      namespace: context.namespace,
      labels: serviceLabels(context),
    },
    spec: {
      selector: { matchLabels: selectorLabels(context) },
      ...(fewest >= 2 ? { maxUnavailable: 1 } : { minAvailable: 1 }),
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  };
}
