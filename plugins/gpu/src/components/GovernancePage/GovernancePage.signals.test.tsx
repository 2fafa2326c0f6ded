import { entityRouteRef } from '@backstage/plugin-catalog-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { GPU_SERVICE_CHANGES_CHANNEL } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor } from '@testing-library/react';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { FakeSignalApi } from '../../__testUtils__/FakeSignalApi';
import { summariserService } from '../../__testUtils__/gpuFixtures';
import { GovernancePage } from './GovernancePage';

jest.setTimeout(60_000);
configure({ asyncUtilTimeout: 15_000 });

async function renderPage(api: FakeGpuApi, signals: FakeSignalApi) {
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [signalApiRef, signals],
          [
            permissionApiRef,
            mockApis.permission({ authorize: AuthorizeResult.ALLOW }),
          ],
        ]}
      >
        <GovernancePage />
      </TestApiProvider>
    </SWRConfig>,
    { mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef } },
  );
  await screen.findByText('GPU pools');
}

describe('GovernancePage with signals', () => {
  it('shows a request made elsewhere as soon as the backend signals it, once per burst', async () => {
    const api = new FakeGpuApi();
    const signals = new FakeSignalApi();
    await renderPage(api, signals);
    await screen.findByText('No request is waiting for approval.');
    expect(signals.subscriberCount(GPU_SERVICE_CHANGES_CHANNEL)).toBe(1);
    const before = api.callsOf('listApprovals').length;

    // Bob asks for more GPUs than his team's quota, in another browser.
    const big = summariserService({
      id: 'svc-big',
      name: 'big-summariser',
      status: 'pending-approval',
    });
    api.services.set(big.id, big);
    api.approvals.push({
      id: 'appr-1',
      serviceId: big.id,
      team: 'ml-platform',
      kind: 'create',
      state: 'pending',
      reasons: [{ code: 'over-quota', message: 'over quota' }],
      requestedBy: 'user:default/bob',
      requestedAt: new Date().toISOString(),
    });
    const change = {
      kind: 'service',
      change: 'created',
      serviceId: big.id,
      team: 'ml-platform',
      status: 'pending-approval',
    };
    signals.publish(GPU_SERVICE_CHANGES_CHANNEL, change);
    signals.publish(GPU_SERVICE_CHANGES_CHANNEL, {
      kind: 'quota',
      team: 'ml-platform',
    });

    // By label, not by role: role queries compute every accessible name of this large page on each retry, which
    // under CI load outlasts the timeout.
    expect(
      await screen.findByLabelText('approve big-summariser'),
    ).toHaveProperty('tagName', 'BUTTON');
    await waitFor(() =>
      expect(api.callsOf('listApprovals').length).toBe(before + 1),
    );
  });
});
