import { ownershipLabels } from '../labels';
import { localQueueName } from '../names/queueNames';
import { ServiceContext } from './resolveServiceContext';

/**
 * Labels Kueue reads on a workload.
 *
 * @public
 */
export const KUEUE_LABELS = {
  queueName: 'kueue.x-k8s.io/queue-name',
  priorityClass: 'kueue.x-k8s.io/priority-class',
} as const;

/**
 * Label the Backstage Kubernetes plugin finds a component's objects by.
 *
 * @public
 */
export const BACKSTAGE_KUBERNETES_ID_LABEL = 'backstage.io/kubernetes-id';

/** Pod selector of a service: stable for the service's lifetime (a Deployment's selector is immutable). */
export function selectorLabels(
  context: ServiceContext,
): Record<string, string> {
  return {
    'app.kubernetes.io/name': context.request.runtime,
    'app.kubernetes.io/instance': context.request.name,
  };
}

/** Labels on every object of a service: the configured extra labels, then the renderer's own (which win). */
export function serviceLabels(context: ServiceContext): Record<string, string> {
  return {
    ...context.options.labels,
    ...selectorLabels(context),
    'app.kubernetes.io/component': 'model-server',
    'app.kubernetes.io/part-of': 'gpu-model-services',
    [BACKSTAGE_KUBERNETES_ID_LABEL]: context.request.name,
    ...ownershipLabels('service', {
      team: context.team.name,
      serviceId: context.options.serviceId,
    }),
  };
}

/** Labels of the Deployment and its pods: the service labels plus Kueue's queue and priority, tier and pool. */
export function workloadLabels(
  context: ServiceContext,
): Record<string, string> {
  return {
    ...serviceLabels(context),
    [KUEUE_LABELS.queueName]: localQueueName(context.team.name),
    [KUEUE_LABELS.priorityClass]: context.environment.priorityClass,
    'gpu.backstage.io/tier': context.slice.tier,
    'gpu.backstage.io/pool': context.pool.name,
  };
}
