import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalClusterClients } from '../testUtils/localCluster';

/** KEDA and its HTTP add-on as `scripts/keda up` runs them beside the local cluster. */
export interface LocalKeda {
  /** The add-on interceptor's proxy, where requests to a service scaled to zero go. */
  interceptorUrl: string;
  interceptorAdminUrl: string;
  /**
   * Routes a Service's virtual address (`<service>.<namespace>:<port>`) to a loopback server of the test: what
   * cluster DNS and kube-proxy do in a cluster (autoscaling/setup/serviceNetwork.ts). Returns the route's removal.
   */
  route(virtualAddress: string, loopbackAddress: string): () => void;
}

/**
 * KEDA beside the local cluster of `kubeconfig` (its state in `<cluster dir>/keda`, as `scripts/keda up` leaves it),
 * checked to be serving: the external metrics APIService is Available. Throws what to run when it is not, so the
 * autoscaling suites fail rather than skip without it.
 */
export async function localKeda(
  kubeconfig: string,
  clients: LocalClusterClients,
): Promise<LocalKeda> {
  const file = join(dirname(kubeconfig), 'keda', 'endpoints.json');
  if (!existsSync(file)) {
    throw new Error(
      `No KEDA beside the local cluster (${file} is missing): run scripts/keda up with GPU_CLUSTER_DIR=${dirname(
        kubeconfig,
      )} (scripts/test starts it for the cluster suites)`,
    );
  }
  const apiService = (await clients.custom.getClusterCustomObject({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    plural: 'apiservices',
    name: 'v1beta1.external.metrics.k8s.io',
  })) as {
    status?: {
      conditions?: Array<{ type: string; status: string; message?: string }>;
    };
  };
  const available = apiService.status?.conditions?.find(
    c => c.type === 'Available',
  );
  if (available?.status !== 'True') {
    throw new Error(
      `KEDA's metrics API server is not available (${available?.message}): see scripts/keda status and its logs`,
    );
  }
  const endpoints = JSON.parse(readFileSync(file, 'utf8')) as {
    interceptorUrl: string;
    interceptorAdminUrl: string;
    serviceNetworkRoutes: string;
  };
  return {
    interceptorUrl: endpoints.interceptorUrl,
    interceptorAdminUrl: endpoints.interceptorAdminUrl,
    route(virtualAddress, loopbackAddress) {
      const routeFile = join(
        endpoints.serviceNetworkRoutes,
        `test-${virtualAddress.replace(/[^a-z0-9.-]/gi, '_')}.json`,
      );
      writeFileSync(
        routeFile,
        JSON.stringify({ [virtualAddress]: loopbackAddress }),
      );
      return () => rmSync(routeFile, { force: true });
    },
  };
}
