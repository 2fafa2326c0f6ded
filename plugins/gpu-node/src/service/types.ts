import type { V1ObjectMeta } from '@kubernetes/client-node';

/**
 * Options of {@link renderServiceManifests}.
 *
 * @public
 */
export interface ServiceRenderOptions {
  /** The gpu backend's id of the service; becomes the `gpu.backstage.io/service-id` label (a valid label value). */
  serviceId: string;
  /** Container images; default {@link DEFAULT_IMAGES}. */
  images?: { vllm?: string; ollama?: string };
  /** Prometheus the KEDA trigger queries. Default {@link DEFAULT_PROMETHEUS_SERVER_ADDRESS}. */
  prometheusServerAddress?: string;
  /** Secret with a Hugging Face token for gated models (vLLM reads `HF_TOKEN`). */
  huggingFaceTokenSecret?: { name: string; key: string };
  /** Model cache: a storage class for the rendered claim, or an existing (shared) claim to mount instead. */
  modelCache?: { storageClassName?: string; existingClaim?: string };
  /** Pod `runtimeClassName`, e.g. `nvidia` where the NVIDIA runtime is not the node default. */
  runtimeClassName?: string;
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
    triggers: ScaleTrigger[];
  };
}
