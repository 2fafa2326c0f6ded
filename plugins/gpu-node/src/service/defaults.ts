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
 * HTTP ports of the runtimes (the Service exposes the same port).
 *
 * @public
 */
export const RUNTIME_PORTS = { vllm: 8000, ollama: 11434 } as const;
