import type { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  V1Pod,
} from '@kubernetes/client-node';

/**
 * A small vLLM service (Llama 3.2 3B in int4, 2,048 tokens, two sequences, one replica, dev) that fits a slice of every
 * tier: the request of the cluster suites, placed where `fields` says.
 *
 * @public
 */
export function smallServiceRequest(
  fields: Pick<
    ServiceRequest,
    'name' | 'team' | 'namespace' | 'tier' | 'pool'
  > &
    Partial<ServiceRequest>,
): ServiceRequest {
  return {
    model: 'llama-3.2-3b',
    runtime: 'vllm',
    dtype: 'int4',
    maxModelLen: 2048,
    concurrency: 2,
    replicas: 1,
    environment: 'dev',
    ...fields,
  };
}

/**
 * Typed clients of the local cluster, for assertions on what it really did.
 *
 * @public
 */
export function localClusterClients(kubeconfig: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return {
    kc,
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
  };
}

/** @public */
export type LocalClusterClients = ReturnType<typeof localClusterClients>;

/**
 * Creates the namespaces (teams own theirs; the product does not create them), ignoring those that exist.
 *
 * @public
 */
export async function createNamespaces(
  clients: LocalClusterClients,
  names: string[],
): Promise<void> {
  for (const name of names) {
    try {
      await clients.core.createNamespace({ body: { metadata: { name } } });
    } catch (error) {
      if ((error as { code?: number }).code !== 409) throw error;
    }
  }
}

/**
 * Polls until `check` returns a value (not undefined), or fails with what was last seen.
 *
 * @public
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 60_000, intervalMs = 250 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${
          last ? `: ${String(last)}` : ''
        }`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, intervalMs));
  }
}

/**
 * Kueue's Workload of a pod (the pod integration creates one per pod, owned by it).
 *
 * @public
 */
export interface KueueWorkload {
  metadata: {
    name: string;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  spec: { queueName?: string };
  status?: {
    admission?: {
      clusterQueue: string;
      podSetAssignments: Array<{
        name: string;
        flavors?: Record<string, string>;
      }>;
    };
    conditions?: Array<{
      type: string;
      status: string;
      reason?: string;
      message?: string;
    }>;
  };
}

/** @public */
export async function podsOf(
  clients: LocalClusterClients,
  namespace: string,
  deploymentName: string,
): Promise<V1Pod[]> {
  const deployment = await clients.apps.readNamespacedDeployment({
    name: deploymentName,
    namespace,
  });
  const selector = Object.entries(deployment.spec!.selector.matchLabels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  const pods = await clients.core.listNamespacedPod({
    namespace,
    labelSelector: selector,
  });
  return pods.items.filter(pod => !pod.metadata?.deletionTimestamp);
}

/** @public */
export async function workloadsOfPods(
  clients: LocalClusterClients,
  namespace: string,
  pods: V1Pod[],
): Promise<KueueWorkload[]> {
  const list = (await clients.custom.listNamespacedCustomObject({
    group: 'kueue.x-k8s.io',
    version: 'v1beta2',
    namespace,
    plural: 'workloads',
  })) as { items: KueueWorkload[] };
  const names = new Set(pods.map(pod => pod.metadata!.name));
  return list.items.filter(workload =>
    workload.metadata.ownerReferences?.some(
      owner => owner.kind === 'Pod' && names.has(owner.name),
    ),
  );
}

/** @public */
export function hasCondition(
  conditions: Array<{ type: string; status: string }> | undefined,
  type: string,
): boolean {
  return conditions?.some(c => c.type === type && c.status === 'True') ?? false;
}
