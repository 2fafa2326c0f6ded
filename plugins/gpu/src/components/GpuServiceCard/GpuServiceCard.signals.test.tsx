import { Entity } from '@backstage/catalog-model';
import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { GPU_SERVICE_CHANGES_CHANNEL } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor } from '@testing-library/react';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { FakeSignalApi } from '../../__testUtils__/FakeSignalApi';
import {
  summariserCost,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { GpuServiceCard } from './GpuServiceCard';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const approved = summariserService();
const pending = summariserService({ status: 'pending-approval' });

const entity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    annotations: { 'gpu.backstage.io/service-id': pending.id },
  },
  spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
};

function backend(service: typeof pending) {
  const api = new FakeGpuApi();
  api.services.set(service.id, service);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage());
  return api;
}

async function renderCard(api: FakeGpuApi, signals: FakeSignalApi) {
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [gpuApiRef, api],
        [signalApiRef, signals],
      ]}
    >
      <EntityProvider entity={entity}>
        <GpuServiceCard />
      </EntityProvider>
    </TestApiProvider>,
  );
}

describe('GpuServiceCard with signals', () => {
  it('reads the service, usage and cost again when the backend signals a change of it, keeping the figures on screen', async () => {
    const api = backend(approved);
    const signals = new FakeSignalApi();
    await renderCard(api, signals);
    expect(
      await screen.findByText(/· approved \(dry run, no cluster\)$/),
    ).toBeInTheDocument();
    await screen.findByTestId('figure-projected');
    expect(api.callsOf('getService')).toHaveLength(1);
    expect(api.callsOf('getServiceCost')).toHaveLength(1);

    // Another service's change: nothing is read.
    signals.publish(GPU_SERVICE_CHANGES_CHANNEL, {
      kind: 'service',
      change: 'status',
      serviceId: 'another-service',
      team: 'search',
      status: 'ready',
    });
    // Changed in another browser.
    api.services.set(approved.id, { ...approved, status: 'ready' });
    let progressShown = false;
    const observer = new MutationObserver(() => {
      if (screen.queryByTestId('progress')) progressShown = true;
    });
    observer.observe(document.body, { childList: true, subtree: true });
    signals.publish(GPU_SERVICE_CHANGES_CHANNEL, {
      kind: 'service',
      change: 'status',
      serviceId: approved.id,
      team: 'ml-platform',
      status: 'ready',
    });
    expect(
      await screen.findByText(/· ready \(dry run, no cluster\)$/),
    ).toBeInTheDocument();
    await waitFor(() => expect(api.callsOf('getServiceCost')).toHaveLength(2));
    observer.disconnect();
    expect(api.callsOf('getService')).toEqual([[approved.id], [approved.id]]);
    expect(progressShown).toBe(false);
    expect(screen.getByTestId('figure-projected')).toBeInTheDocument();
  });

  it('turns a waiting request into its figures when the backend signals its approval', async () => {
    const api = backend(pending);
    const signals = new FakeSignalApi();
    await renderCard(api, signals);
    expect(await screen.findByTestId('lifecycle-pending')).toHaveTextContent(
      'Waiting for approval',
    );
    // Nothing held, nothing to read.
    expect(api.callsOf('getServiceCost')).toHaveLength(0);

    api.services.set(pending.id, { ...pending, status: 'approved' });
    signals.publish(GPU_SERVICE_CHANGES_CHANNEL, {
      kind: 'service',
      change: 'approval',
      serviceId: pending.id,
      team: 'ml-platform',
      status: 'approved',
    });
    expect(await screen.findByTestId('figure-projected')).toBeInTheDocument();
    expect(screen.queryByTestId('lifecycle-pending')).toBeNull();
    expect(api.callsOf('getServiceCost')).toHaveLength(1);
  });
});
