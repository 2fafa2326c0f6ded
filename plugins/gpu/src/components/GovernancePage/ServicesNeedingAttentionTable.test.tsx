import { entityRouteRef } from '@backstage/plugin-catalog-react';
import { configure, screen, within } from '@testing-library/react';
import { SERVICE_REASONS } from '@gpu-platform/backstage-plugin-gpu-common';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { summariserService } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { failingCondition, reasonInWords } from '../common/conditionWords';
import { ServicesNeedingAttentionTable } from './ServicesNeedingAttentionTable';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

describe('ServicesNeedingAttentionTable', () => {
  it('lists failed, starting and applying services with the condition that holds each back, in words from its reason code', async () => {
    const api = new FakeGpuApi();
    const add = (id: string, fields: Parameters<typeof summariserService>[0]) =>
      api.services.set(id, summariserService({ id, mode: 'apply', ...fields }));
    add('a', {
      name: 'refused',
      status: 'failed',
      reason: 'ApplyFailed',
      statusReason: 'admission webhook "x" denied the request',
      updatedAt: '2026-11-02T00:00:00.000Z',
    });
    add('b', {
      name: 'queued',
      status: 'starting',
      reason: 'KueuePending',
      observedGeneration: 1,
      updatedAt: '2026-11-01T00:00:00.000Z',
    });
    add('c', { name: 'running', status: 'ready', reason: 'Available' });
    add('e', {
      name: 'sending',
      status: 'applying',
      reason: 'Applying',
      updatedAt: '2026-11-03T00:00:00.000Z',
    });
    add('d', {
      name: 'waiting',
      status: 'pending-approval',
      reason: 'AwaitingApproval',
    });
    await renderWithGpuApis(<ServicesNeedingAttentionTable />, {
      api,
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    });

    const queued = await screen.findByRole('row', { name: /^queued/ });
    expect(
      within(queued).getByText(
        'Available: waiting for Kueue to admit it: the team’s queue has no free quota',
      ),
    ).toBeInTheDocument();
    expect(within(queued).getByText('KueuePending')).toBeInTheDocument();
    const refused = screen.getByRole('row', { name: /^refused/ });
    expect(
      within(refused).getByText(
        'Applied: the cluster refused the apply; retry it or delete the service',
      ),
    ).toBeInTheDocument();
    // The backend's message is not what the page shows.
    expect(screen.queryByText(/admission webhook/)).not.toBeInTheDocument();
    // The status in words beside the team and environment, not its key ('applying').
    const sending = screen.getByRole('row', { name: /^sending/ });
    expect(
      within(sending).getByText('ml-platform · production · being applied'),
    ).toBeInTheDocument();
    expect(
      within(queued).getByText('ml-platform · production · starting'),
    ).toBeInTheDocument();
    // Longest held back first; running and waiting-for-approval services are elsewhere.
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toBe(queued);
    expect(rows[1]).toBe(refused);
    expect(rows[2]).toBe(sending);
    // Headers are plain text: no sort control that would do nothing, no drag handle around one (axe
    // nested-interactive in Chromium).
    for (const name of ['Service', 'Condition', 'Since']) {
      expect(
        screen
          .getByRole('columnheader', { name })
          .querySelector('[role="button"]'),
      ).toBeNull();
    }
    expect(api.callsOf('listServices').map(([q]) => q)).toEqual([
      { status: 'failed', limit: 50 },
      { status: 'starting', limit: 50 },
      { status: 'applying', limit: 50 },
    ]);
  });

  it('has words for every reason code, and finds the condition that holds a service back', () => {
    for (const reason of SERVICE_REASONS) {
      expect(reasonInWords(reason)).not.toBe(reason);
    }
    expect(
      failingCondition(
        summariserService({ status: 'ready', reason: 'Available' }).conditions,
      ),
    ).toBeUndefined();
    expect(
      failingCondition(
        summariserService({ status: 'failed', reason: 'TeardownFailed' })
          .conditions,
      ),
    ).toMatchObject({ type: 'Deleting', reason: 'TeardownFailed' });
    expect(
      failingCondition(
        summariserService({ status: 'deleted', reason: 'Deleted' }).conditions,
      ),
    ).toBeUndefined();
  });
});
