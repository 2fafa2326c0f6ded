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

const base = summariserService();

function entity(): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'summariser',
      annotations: { 'gpu.backstage.io/service-id': base.id },
    },
    spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
  };
}

/** A backend that knows the service and would answer its usage and cost. */
function backend(service: GpuServiceView): FakeGpuApi {
  const api = new FakeGpuApi();
  api.services.set(service.id, service);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage());
  return api;
}

async function renderCard(api: FakeGpuApi) {
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
        <EntityProvider entity={entity()}>
          <GpuServiceCard />
        </EntityProvider>
      </TestApiProvider>
    </SWRConfig>,
  );
}

describe('GpuServiceCard of a GitOps service with a change pending', () => {
  it('shows "Change pending", what changes and a link to its pull request', async () => {
    const api = backend({
      ...base,
      mode: 'gitops',
      status: 'ready',
      reason: 'ChangePending',
      generation: 2,
      observedGeneration: 1,
      request: { ...base.request, replicas: 2 },
      pendingChange: {
        generation: 2,
        pullRequest: {
          url: 'https://git.example.com/ops/gitops/pulls/12',
          number: 12,
          mergeBy: '2026-12-02T10:00:00.000Z',
        },
        createdBy: 'user:default/alice',
        createdAt: '2026-12-02T08:00:00.000Z',
        previous: {
          tier: base.placement.tier,
          pool: base.placement.pool,
          model: base.request.model,
          replicas: 1,
        },
        proposed: {
          tier: base.placement.tier,
          pool: base.placement.pool,
          model: base.request.model,
          replicas: 2,
        },
      },
    });
    await renderCard(api);
    const notice = await screen.findByTestId('pending-change-notice');
    expect(notice).toHaveTextContent(/^Change pending: replicas 1 → 2\. /);
    expect(notice).toHaveTextContent('the cluster runs the previous spec');
    expect(screen.getByRole('link', { name: '#12' })).toHaveAttribute(
      'href',
      'https://git.example.com/ops/gitops/pulls/12',
    );
  });

  it('shows no pending change when there is none', async () => {
    await renderCard(backend({ ...base, mode: 'gitops', status: 'ready' }));
    expect((await screen.findAllByText(/1 replica/)).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('pending-change-notice')).toBeNull();
  });
});
