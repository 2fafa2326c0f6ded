import { Entity } from '@backstage/catalog-model';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  summariserCost,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { GpuServiceCard } from './GpuServiceCard';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

async function renderCard(service: GpuServiceView) {
  const api = new FakeGpuApi();
  api.services.set(service.id, service);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage());
  const entity: Entity = {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'summariser',
      annotations: { 'gpu.backstage.io/service-id': service.id },
    },
    spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
  };
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [
            permissionApiRef,
            mockApis.permission({ authorize: AuthorizeResult.ALLOW }),
          ],
        ]}
      >
        <EntityProvider entity={entity}>
          <GpuServiceCard />
        </EntityProvider>
      </TestApiProvider>
    </SWRConfig>,
  );
}

describe('GpuServiceCard on a fleet', () => {
  it('names the cluster the service is on, with its mode', async () => {
    await renderCard({
      ...summariserService(),
      cluster: 'prod-eu',
      mode: 'gitops',
    });
    expect(await screen.findByTestId('service-cluster')).toHaveTextContent(
      'Cluster: prod-eu (delivered through a pull request to the GitOps repository)',
    );
  });

  it('names no cluster for a service that has none (dry-run without clusters)', async () => {
    const service = summariserService();
    delete service.cluster;
    await renderCard({ ...service, mode: 'dry-run' });
    expect(await screen.findByTestId('cluster-not-read')).toBeInTheDocument();
    expect(screen.queryByTestId('service-cluster')).toBeNull();
  });
});
