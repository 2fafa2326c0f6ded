import type { V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { selectorLabels, serviceLabels } from './serviceLabels';

/**
 * The PodDisruptionBudget of a service in an environment that asks for one: evictions take at most
 * `podDisruptionBudget.maxUnavailable` pods at a time (default 1). Always `maxUnavailable`, never `minAvailable`, so
 * a single replica never blocks a node drain (it is evicted and rescheduled), and unhealthy pods never do.
 */
export function renderPodDisruptionBudget(
  context: ServiceContext,
): V1PodDisruptionBudget | undefined {
  if (!context.environment.podDisruptionBudget) {
    return undefined;
  }
  const { request, options } = context;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: serviceObjectNames(request.name).podDisruptionBudget,
      namespace: context.namespace,
      labels: serviceLabels(context),
      annotations: serviceAnnotations(context),
    },
    spec: {
      selector: { matchLabels: selectorLabels(context) },
      maxUnavailable: options.podDisruptionBudget?.maxUnavailable ?? 1,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  };
}
