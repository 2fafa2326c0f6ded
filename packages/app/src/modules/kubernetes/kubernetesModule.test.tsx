import { Entity } from '@backstage/catalog-model';
import { coreExtensionData } from '@backstage/frontend-plugin-api';
import {
  createExtensionTester,
  mockApis,
  renderInTestApp,
} from '@backstage/frontend-test-utils';
import {
  KubernetesApi,
  kubernetesApiRef,
  KubernetesAuthProvidersApi,
  kubernetesAuthProvidersApiRef,
} from '@backstage/plugin-kubernetes';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { EntityContentBlueprint } from '@backstage/plugin-catalog-react/alpha';
import { screen } from '@testing-library/react';
import { kubernetesEntityContent } from './kubernetesModule';

const summariser: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    annotations: {
      'backstage.io/kubernetes-id': 'summariser',
      'backstage.io/kubernetes-namespace': 'ml-serving',
    },
  },
  spec: { type: 'service', lifecycle: 'experimental', owner: 'ml-platform' },
};

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'summariser-7d9f-abcde',
    namespace: 'ml-serving',
    labels: { 'backstage.io/kubernetes-id': 'summariser' },
  },
  status: { phase: 'Running' },
};

/** A Kubernetes backend with these clusters, each holding the one pod of the entity. */
function fakeKubernetesApi(clusterNames: string[]) {
  const clusters = clusterNames.map(name => ({
    name,
    authProvider: 'serviceAccount',
  }));
  return {
    getClusters: jest.fn(async () => clusters),
    getObjectsByEntity: jest.fn(async () => ({
      items: clusters.map(cluster => ({
        cluster: { name: cluster.name },
        resources: [{ type: 'pods' as const, resources: [pod] }],
        podMetrics: [],
        errors: [],
      })),
    })),
  };
}

const authProviders = {
  decorateRequestBodyForAuth: jest.fn(
    async (_provider: string, body: any) => body,
  ),
  getCredentials: jest.fn(async () => ({})),
};

/** The tab's content as the app renders it on the entity page. */
function renderTab(api: ReturnType<typeof fakeKubernetesApi>) {
  const tester = createExtensionTester(kubernetesEntityContent);
  return renderInTestApp(
    <EntityProvider entity={summariser}>
      {tester.reactElement()}
    </EntityProvider>,
    {
      apis: [
        [kubernetesApiRef, api as unknown as KubernetesApi],
        [
          kubernetesAuthProvidersApiRef,
          authProviders as unknown as KubernetesAuthProvidersApi,
        ],
        mockApis.permission(),
      ],
    },
  );
}

describe('the entity Kubernetes tab', () => {
  it('says that no cluster is configured (dry-run) when the Kubernetes backend has none, without fetching objects', async () => {
    const api = fakeKubernetesApi([]);
    renderTab(api);

    expect(
      await screen.findByText('No Kubernetes cluster configured (dry-run)'),
    ).toBeInTheDocument();
    expect(screen.getByTestId('kubernetes-no-cluster')).toHaveTextContent(
      './scripts/start --cluster',
    );
    expect(api.getObjectsByEntity).not.toHaveBeenCalled();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("shows the Kubernetes plugin's content, with the entity's pods, when a cluster is configured", async () => {
    const api = fakeKubernetesApi(['local']);
    renderTab(api);

    expect(await screen.findByText('Your Clusters')).toBeInTheDocument();
    expect(await screen.findByText('local')).toBeInTheDocument();
    expect(api.getObjectsByEntity).toHaveBeenCalledWith(
      expect.objectContaining({ entity: summariser }),
    );
    expect(screen.queryByTestId('kubernetes-no-cluster')).toBeNull();
  });

  it('shows the error when the cluster list cannot be read', async () => {
    const api = fakeKubernetesApi([]);
    api.getClusters.mockRejectedValue(new Error('Request failed with 500'));
    renderTab(api);

    expect(
      (await screen.findAllByText(/Request failed with 500/)).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByTestId('kubernetes-no-cluster')).toBeNull();
  });

  it("keeps the plugin's tab: same path and title, only on entities with a Kubernetes annotation", () => {
    const tester = createExtensionTester(kubernetesEntityContent);
    expect(tester.get(coreExtensionData.routePath)).toBe('/kubernetes');
    expect(tester.get(EntityContentBlueprint.dataRefs.title)).toBe(
      'Kubernetes',
    );
    const filter = tester.get(EntityContentBlueprint.dataRefs.filterFunction)!;
    expect(filter(summariser)).toBe(true);
    expect(filter({ ...summariser, metadata: { name: 'summariser' } })).toBe(
      false,
    );
  });
});
