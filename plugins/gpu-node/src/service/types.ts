import type { V1ObjectMeta } from '@kubernetes/client-node';
import {
  AlertSettings,
  ServiceSettings,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Options of {@link renderServiceManifests}: the service's id and the effective settings of `gpu.serviceDefaults`
 * for its environment and pool (see `resolveServiceSettings` in gpu-common), plus what quota allows.
 *
 * @public
 */
export interface ServiceRenderOptions extends ServiceSettings {
  /** The gpu backend's id of the service; becomes the `gpu.backstage.io/service-id` label (a valid label value). */
  serviceId: string;
  /**
   * Whether the team's quota holds a surge pod (one more replica's GPU share) during a rollout. When it does not,
   * an environment with `zeroDowntimeRollouts` rolls out without a surge and the Deployment says why in the
   * `gpu.backstage.io/rollout` annotation. Unset: assumed to hold.
   */
  surge?: { fits: boolean; reason?: string };
  /**
   * The platform's alert settings (`gpu.alerts`) when alerts are enabled, so the cluster runs the Prometheus
   * operator: a vLLM service with a `latencyBudget` then gets a PrometheusRule with its budget alert, carrying these
   * labels (what the Prometheus's `ruleSelector` selects). Unset: no rule.
   */
  alerts?: Pick<AlertSettings, 'labels'>;
}

/**
 * A KEDA trigger (only the fields the renderer sets).
 *
 * @public
 */
export interface ScaleTrigger {
  type: 'prometheus';
  metadata: Record<string, string>;
}

/**
 * KEDA ScaledObject (`keda.sh/v1alpha1`), the fields the renderer sets.
 *
 * @public
 */
export interface ScaledObject {
  apiVersion: 'keda.sh/v1alpha1';
  kind: 'ScaledObject';
  metadata: V1ObjectMeta;
  spec: {
    scaleTargetRef: { apiVersion: string; kind: string; name: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    pollingInterval: number;
    cooldownPeriod: number;
    /** The scale-down window of the HPA KEDA makes, when the settings change it from the HPA's 300 s. */
    advanced?: {
      horizontalPodAutoscalerConfig: {
        behavior: { scaleDown: { stabilizationWindowSeconds: number } };
      };
    };
    triggers: ScaleTrigger[];
  };
}

/**
 * KEDA HTTP add-on HTTPScaledObject (`http.keda.sh/v1alpha1`), the fields the renderer sets: the add-on's
 * interceptor holds requests while the service is at zero and scales it from there.
 *
 * @public
 */
export interface HttpScaledObject {
  apiVersion: 'http.keda.sh/v1alpha1';
  kind: 'HTTPScaledObject';
  metadata: V1ObjectMeta;
  spec: {
    hosts: string[];
    scaleTargetRef: {
      apiVersion: string;
      kind: string;
      name: string;
      service: string;
      port: number;
    };
    replicas: { min: number; max: number };
    scalingMetric: { concurrency: { targetValue: number } };
    scaledownPeriod: number;
  };
}

/**
 * Prometheus operator PodMonitor (`monitoring.coreos.com/v1`), the fields the renderer sets.
 *
 * @public
 */
export interface PodMonitor {
  apiVersion: 'monitoring.coreos.com/v1';
  kind: 'PodMonitor';
  metadata: V1ObjectMeta;
  spec: {
    selector: { matchLabels: Record<string, string> };
    podMetricsEndpoints: Array<{
      port: string;
      path: string;
      interval: string;
    }>;
  };
}
