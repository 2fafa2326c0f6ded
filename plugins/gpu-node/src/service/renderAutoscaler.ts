import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { DEFAULT_PROMETHEUS_SERVER_ADDRESS } from './defaults';
import { ServiceContext } from './resolveServiceContext';
import { serviceObjectNames } from './serviceNames';
import { serviceLabels } from './serviceLabels';
import { ScaledObject } from './types';
import { vllmMetricSelector } from './vllmArgs';

/**
 * vLLM's gauge of requests waiting for a slot, the autoscaling signal.
 *
 * @public
 */
export const QUEUE_DEPTH_METRIC = 'vllm:num_requests_waiting';

/** Seconds of calm before scaling in. */
const SCALE_DOWN_STABILIZATION_SECONDS = 300;

/**
 * The autoscaler of a service, if it asks for one: a KEDA ScaledObject on the summed queue depth (KEDA divides by
 * the replica count; `minReplicaCount` 0 scales to zero), or an HPA on the per-pod queue depth served by a metrics
 * adapter. Both aim at `targetQueueDepth` waiting requests per replica.
 */
export function renderAutoscaler(
  context: ServiceContext,
): ScaledObject | V2HorizontalPodAutoscaler | undefined {
  const autoscaling = context.request.autoscaling;
  if (!autoscaling) {
    return undefined;
  }
  const names = serviceObjectNames(context.request.name);
  const metadata = {
    name: names.autoscaler,
    namespace: context.namespace,
    labels: serviceLabels(context),
  };
  const scaleTargetRef = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: names.deployment,
  };
  if (autoscaling.engine === 'keda') {
    const selector = vllmMetricSelector(
      context.namespace,
      context.request.name,
    );
    return {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata,
      spec: {
        scaleTargetRef,
        minReplicaCount: autoscaling.minReplicas,
        maxReplicaCount: autoscaling.maxReplicas,
        pollingInterval: 15,
        cooldownPeriod: SCALE_DOWN_STABILIZATION_SECONDS,
        triggers: [
          {
            type: 'prometheus',
            metadata: {
              serverAddress:
                context.options.prometheusServerAddress ??
                DEFAULT_PROMETHEUS_SERVER_ADDRESS,
              query: `sum(${QUEUE_DEPTH_METRIC}{${selector}})`,
              threshold: String(autoscaling.targetQueueDepth),
              activationThreshold: '0',
            },
          },
        ],
      },
    };
  }
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef,
      minReplicas: autoscaling.minReplicas,
      maxReplicas: autoscaling.maxReplicas,
      metrics: [
        {
          type: 'Pods',
          pods: {
            metric: { name: QUEUE_DEPTH_METRIC },
            target: {
              type: 'AverageValue',
              averageValue: String(autoscaling.targetQueueDepth),
            },
          },
        },
      ],
      behavior: {
        scaleDown: {
          stabilizationWindowSeconds: SCALE_DOWN_STABILIZATION_SECONDS,
        },
      },
    },
  };
}
