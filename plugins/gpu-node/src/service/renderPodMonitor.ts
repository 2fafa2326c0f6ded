import { ServiceContext } from './resolveServiceContext';
import { serviceAnnotations } from './serviceAnnotations';
import { serviceObjectNames } from './serviceNames';
import { selectorLabels, serviceLabels } from './serviceLabels';
import { PodMonitor } from './types';

/** How often Prometheus scrapes vLLM's metrics (KEDA polls every 15 s). */
const SCRAPE_INTERVAL = '15s';

/**
 * A Prometheus operator PodMonitor for a vLLM service's metrics (`/metrics` on its `http` port), when
 * `gpu.serviceDefaults.podMonitor` asks for one; it carries the configured labels so the Prometheus
 * `podMonitorSelector` picks it up. Ollama exports no Prometheus metrics, so it gets none.
 */
export function renderPodMonitor(
  context: ServiceContext,
): PodMonitor | undefined {
  const monitor = context.options.podMonitor;
  if (!monitor?.enabled || context.request.runtime !== 'vllm') {
    return undefined;
  }
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PodMonitor',
    metadata: {
      name: serviceObjectNames(context.request.name).podMonitor,
      namespace: context.namespace,
      labels: { ...monitor.labels, ...serviceLabels(context) },
      annotations: serviceAnnotations(context),
    },
    spec: {
      selector: { matchLabels: selectorLabels(context) },
      podMetricsEndpoints: [
        { port: 'http', path: '/metrics', interval: SCRAPE_INTERVAL },
      ],
    },
  };
}
