/**
 * A pod security context as config gives it (the fields the platform lets operators set).
 *
 * @public
 */
export interface PodSecuritySettings {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  seccompProfile?: { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost' };
}

/**
 * A container security context as config gives it.
 *
 * @public
 */
export interface ContainerSecuritySettings {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
}

/**
 * What can wake a service scaled to zero: something outside its pods, since pods at zero export no metrics.
 * `httpAddOn`: KEDA's HTTP add-on holds requests in its interceptor and scales from there (an `HTTPScaledObject`);
 * `wakeQuery`: a PromQL query on a gateway or queue metric, where `{{namespace}}` and `{{service}}` stand for the
 * service's namespace and name.
 *
 * @public
 */
export type WakeTrigger =
  | {
      type: 'http-add-on';
      scaledownPeriodSeconds: number;
      /** The add-on interceptor's proxy URL clients call (default: the add-on chart's in-cluster Service). */
      interceptorUrl?: string;
    }
  | { type: 'prometheus'; query: string };

/**
 * How a service's objects are rendered on a real cluster, as `gpu.serviceDefaults` (and its per-pool and
 * per-environment overrides) configure it. Every field is optional: unset means the renderer's default.
 *
 * @public
 */
export interface ServiceSettings {
  /** Secret with a Hugging Face token for gated models (vLLM reads `HF_TOKEN`). */
  huggingFaceTokenSecret?: { name: string; key: string };
  /**
   * Images: `registry` is a mirror prefix put before each image reference (e.g. `registry.example.com/hub`);
   * `vllm` and `ollama` are pinned references (tag or digest), without the registry when one is set.
   */
  images?: { registry?: string; vllm?: string; ollama?: string };
  /** A storage class for the rendered model-cache claim, or an existing shared (ReadWriteMany) claim to mount. */
  modelCache?: { storageClassName?: string; existingClaim?: string };
  /** Pod `runtimeClassName`, e.g. `nvidia`. */
  runtimeClassName?: string;
  /** Pod security context. */
  podSecurityContext?: PodSecuritySettings;
  /** Security context of the serving container (and Ollama's pull container). */
  containerSecurityContext?: ContainerSecuritySettings;
  /** Prometheus the KEDA trigger queries. */
  prometheusServerAddress?: string;
  /** Labels added to every object of the service (and its pods); the renderer's own labels win. */
  labels?: Record<string, string>;
  /** Annotations added to every object of the service (and its pods). */
  annotations?: Record<string, string>;
  /**
   * Roll out with a surge pod (`maxSurge: 1, maxUnavailable: 0`) so the service never drops below its replicas;
   * default on in production and staging. The surge pod needs quota for one more replica while a rollout runs.
   */
  zeroDowntimeRollouts?: boolean;
  /** The PodDisruptionBudget (where the environment renders one): `maxUnavailable`, default 1. */
  podDisruptionBudget?: { maxUnavailable: number };
  /** A PodMonitor for the vLLM metrics port, with labels the Prometheus `podMonitorSelector` matches. */
  podMonitor?: { enabled: boolean; labels: Record<string, string> };
  /** What wakes a service scaled to zero; without it `autoscaling.minReplicas: 0` is refused. */
  wakeTrigger?: WakeTrigger;
  /**
   * Seconds the queue must stay low before an autoscaled service gives replicas (and their GPUs) back, and, with
   * KEDA, before it scales to zero; default 300.
   */
  scaleDownStabilizationSeconds?: number;
}

/**
 * `gpu.serviceDefaults` parsed: the defaults and the overrides per pool and per environment. The effective settings
 * of a service are the environment's over the pool's over the defaults (see `resolveServiceSettings`).
 *
 * @public
 */
export interface ServiceDefaults {
  defaults: ServiceSettings;
  byPool: Record<string, ServiceSettings>;
  byEnvironment: Record<string, ServiceSettings>;
}
