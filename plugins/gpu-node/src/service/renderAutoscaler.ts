import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { WAKE_QUERY_PLACEHOLDERS } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEFAULT_INTERCEPTOR_URL,
  DEFAULT_PROMETHEUS_SERVER_ADDRESS,
  WAKE_ENDPOINT_ANNOTATION,
} from './defaults';
import { RUNTIME_PORTS } from './defaults';
import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { serviceLabels } from './serviceLabels';
import { HttpScaledObject, ScaledObject, ScaleTrigger } from './types';
import { vllmMetricSelector } from './vllmArgs';

/**
 * vLLM's gauge of requests waiting for a slot, the autoscaling signal.
 *
 * @public
 */
export const QUEUE_DEPTH_METRIC = 'vllm:num_requests_waiting';

/** Seconds of calm before scaling in, unless the service settings say otherwise. */
const SCALE_DOWN_STABILIZATION_SECONDS = 300;

/** The wake query of a service: the configured PromQL with its namespace and name filled in. */
function wakeQuery(template: string, context: ServiceContext): string {
  return template
    .split(WAKE_QUERY_PLACEHOLDERS.namespace)
    .join(context.namespace)
    .split(WAKE_QUERY_PLACEHOLDERS.service)
    .join(context.request.name);
}

/**
 * The autoscaler of a service, if it asks for one: a KEDA ScaledObject on the summed queue depth (KEDA divides by
 * the replica count), or an HPA on the per-pod queue depth served by a metrics adapter. Both aim at
 * `targetQueueDepth` waiting requests per replica. Scale to zero (`minReplicas` 0, KEDA only) needs the configured
 * wake trigger, outside the pods: with KEDA's HTTP add-on an HTTPScaledObject instead (the add-on's interceptor
 * holds requests at zero; it aims at `concurrency + targetQueueDepth` requests in flight per replica), with a wake
 * query a second Prometheus trigger on it (KEDA activates the Deployment when either is above 0).
 */
export function renderAutoscaler(
  context: ServiceContext,
): ScaledObject | HttpScaledObject | V2HorizontalPodAutoscaler | undefined {
  const autoscaling = context.request.autoscaling;
  if (!autoscaling) {
    return undefined;
  }
  const names = serviceObjectNames(context.request.name);
  const metadata = {
    name: names.autoscaler,
    namespace: context.namespace,
    labels: serviceLabels(context),
    annotations: serviceAnnotations(context),
  };
  const scaleTargetRef = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    name: names.deployment,
  };
  const wake =
    autoscaling.minReplicas === 0 ? context.options.wakeTrigger : undefined;
  const stabilizationSeconds =
    context.options.scaleDownStabilizationSeconds ??
    SCALE_DOWN_STABILIZATION_SECONDS;
  if (autoscaling.engine === 'keda' && wake?.type === 'http-add-on') {
    return {
      apiVersion: 'http.keda.sh/v1alpha1',
      kind: 'HTTPScaledObject',
      metadata: {
        ...metadata,
        annotations: serviceAnnotations(context, {
          [WAKE_ENDPOINT_ANNOTATION]:
            wake.interceptorUrl ?? DEFAULT_INTERCEPTOR_URL,
        }),
      },
      spec: {
        hosts: [`${names.service}.${context.namespace}.svc.cluster.local`],
        scaleTargetRef: {
          ...scaleTargetRef,
          service: names.service,
          port: RUNTIME_PORTS[context.request.runtime],
        },
        replicas: { min: 0, max: autoscaling.maxReplicas },
        scalingMetric: {
          concurrency: {
            targetValue:
              context.request.concurrency + autoscaling.targetQueueDepth,
          },
        },
        scaledownPeriod: wake.scaledownPeriodSeconds,
      },
    };
  }
  if (autoscaling.engine === 'keda') {
    const selector = vllmMetricSelector(
      context.namespace,
      context.request.name,
    );
    const serverAddress =
      context.options.prometheusServerAddress ??
      DEFAULT_PROMETHEUS_SERVER_ADDRESS;
    const triggers: ScaleTrigger[] = [
      {
        type: 'prometheus',
        metadata: {
          serverAddress,
          query: `sum(${QUEUE_DEPTH_METRIC}{${selector}})`,
          threshold: String(autoscaling.targetQueueDepth),
          activationThreshold: '0',
        },
      },
    ];
    if (wake?.type === 'prometheus') {
      triggers.push({
        type: 'prometheus',
        metadata: {
          serverAddress,
          query: wakeQuery(wake.query, context),
          threshold: String(autoscaling.targetQueueDepth),
          activationThreshold: '0',
        },
      });
    }
    return {
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata,
      spec: {
        scaleTargetRef,
        minReplicaCount: autoscaling.minReplicas,
        maxReplicaCount: autoscaling.maxReplicas,
        pollingInterval: 15,
        cooldownPeriod: stabilizationSeconds,
        // KEDA scales in through the HPA it makes, which waits 300 s by default.
        ...(stabilizationSeconds !== SCALE_DOWN_STABILIZATION_SECONDS && {
          advanced: {
            horizontalPodAutoscalerConfig: {
              behavior: {
                scaleDown: {
                  stabilizationWindowSeconds: stabilizationSeconds,
                },
              },
            },
          },
        }),
        triggers,
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
          stabilizationWindowSeconds: stabilizationSeconds,
        },
      },
    },
  };
}
