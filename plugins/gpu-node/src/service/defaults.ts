/**
 * Pinned runtime images.
 *
 * @public
 */
export const DEFAULT_IMAGES = {
  vllm: 'vllm/vllm-openai:v0.18.0',
  ollama: 'ollama/ollama:0.20.6',
} as const;

/**
 * Prometheus address KEDA queries by default (the prometheus-operator's `prometheus-operated` Service).
 *
 * @public
 */
export const DEFAULT_PROMETHEUS_SERVER_ADDRESS =
  'http://prometheus-operated.monitoring.svc:9090';

/**
 * The KEDA HTTP add-on interceptor's proxy URL users call by default (the `keda-add-ons-http` chart's Service).
 *
 * @public
 */
export const DEFAULT_INTERCEPTOR_URL =
  'http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080';

/**
 * Annotation on a service's HTTPScaledObject naming the interceptor URL its users call: the wake endpoint the API
 * gives for the service.
 *
 * @public
 */
export const WAKE_ENDPOINT_ANNOTATION = 'gpu.backstage.io/wake-endpoint';

/**
 * HTTP ports of the runtimes (the Service exposes the same port).
 *
 * @public
 */
export const RUNTIME_PORTS = { vllm: 8000, ollama: 11434 } as const;
