import { ReactNode, useEffect, useState } from 'react';
import {
  EmptyState,
  Progress,
  ResponseErrorPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import { kubernetesApiRef } from '@backstage/plugin-kubernetes';

type Clusters =
  | { state: 'loading' }
  | { state: 'loaded'; count: number }
  | { state: 'failed'; error: Error };

/**
 * Renders its children (the Kubernetes plugin's entity content) only when the Kubernetes backend has a cluster;
 * otherwise a plain message that none is configured, which is the app's default: GPU services are dry-run and there
 * is nothing to show.
 */
export function KubernetesClusterGate(props: { children: ReactNode }) {
  const kubernetesApi = useApi(kubernetesApiRef);
  const [clusters, setClusters] = useState<Clusters>({ state: 'loading' });

  useEffect(() => {
    let current = true;
    kubernetesApi.getClusters().then(
      items => current && setClusters({ state: 'loaded', count: items.length }),
      error => current && setClusters({ state: 'failed', error }),
    );
    return () => {
      current = false;
    };
  }, [kubernetesApi]);

  if (clusters.state === 'loading') {
    return <Progress />;
  }
  if (clusters.state === 'failed') {
    return <ResponseErrorPanel error={clusters.error} />;
  }
  if (clusters.count === 0) {
    return (
      <div data-testid="kubernetes-no-cluster">
        <EmptyState
          missing="info"
          title="No Kubernetes cluster configured (dry-run)"
          description={
            'GPU services are rendered and stored but not applied, so there are no pods to show. ' +
            'Run ./scripts/start --cluster to apply them to a local control plane, or configure a cluster ' +
            'under kubernetes.clusterLocatorMethods and gpu.clusters.'
          }
        />
      </div>
    );
  }
  return <>{props.children}</>;
}
