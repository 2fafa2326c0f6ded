import {
  metricSamples,
  RawKubernetesClient,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { eventually } from '../testUtils';

/** Open watches on the API server per `group/resource/scope`, from its `apiserver_longrunning_requests` gauge. */
export type OpenWatches = ReadonlyMap<string, number>;

const GAUGE = 'apiserver_longrunning_requests';

/** The watches the API server holds open now: every client's informers, the cluster's components' among them. */
export async function openWatches(kubeconfig: string): Promise<OpenWatches> {
  return watchesOf(RawKubernetesClient.fromKubeconfig(kubeconfig));
}

async function watchesOf(client: RawKubernetesClient): Promise<OpenWatches> {
  const response = await client.request('GET', '/metrics');
  if (response.status !== 200 || typeof response.body !== 'string') {
    throw new Error(`GET /metrics: HTTP ${response.status}`);
  }
  const watches = new Map<string, number>();
  for (const { labels, value } of metricSamples(response.body, GAUGE)) {
    if (labels.verb !== 'WATCH') continue;
    const key = `${labels.group}/${labels.resource}/${labels.scope}`;
    watches.set(key, (watches.get(key) ?? 0) + value);
  }
  return watches;
}

/**
 * Waits until every watch open `before` a fault is open again. A client-go reflector whose watch is refused backs off
 * exponentially up to 30 s with as much again of jitter, so after an API server outage the scheduler, the controllers,
 * Kueue and the add-ons come back one by one over a minute or two; a suite that stops the API server waits for them so
 * the suites after it do not run against a cluster that has not.
 */
export async function untilWatchesReturn(
  kubeconfig: string,
  before: OpenWatches,
  timeoutMs = 240_000,
): Promise<void> {
  const client = RawKubernetesClient.fromKubeconfig(kubeconfig);
  await eventually(
    'every watch open before the fault open again',
    async () => {
      const now = await watchesOf(client);
      const short = [...before]
        .filter(([key, count]) => (now.get(key) ?? 0) < count)
        .map(([key, count]) => `${key} ${now.get(key) ?? 0} of ${count}`);
      if (short.length > 0) throw new Error(`short: ${short.join(', ')}`);
      return true;
    },
    { timeoutMs, intervalMs: 1000 },
  );
}
