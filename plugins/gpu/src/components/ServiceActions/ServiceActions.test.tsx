import { Entity } from '@backstage/catalog-model';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import {
  formatUsd,
  GpuServiceView,
  Recommendation,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  rightSizeRecommendation,
  summariserCost,
  summariserService,
  summariserUsage,
} from '../../__testUtils__/gpuFixtures';
import { responseError } from '../../__testUtils__/responseError';
import { GpuServiceCard } from '../GpuServiceCard';
import { monthlyCostMicros } from '../GpuServiceCard/describeService';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const service = summariserService({ status: 'ready' });

const entity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    annotations: { 'gpu.backstage.io/service-id': service.id },
  },
  spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
};

function backend(
  recommendations: Recommendation[] = [],
  svc: GpuServiceView = service,
): FakeGpuApi {
  const api = new FakeGpuApi();
  api.services.set(svc.id, svc);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage(), recommendations);
  return api;
}

async function renderCard(api: FakeGpuApi, allow = true) {
  const permission = mockApis.permission({
    authorize: allow ? AuthorizeResult.ALLOW : AuthorizeResult.DENY,
  });
  const authorize = jest.spyOn(permission, 'authorize');
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [permissionApiRef, permission],
        ]}
      >
        <EntityProvider entity={entity}>
          <GpuServiceCard />
        </EntityProvider>
      </TestApiProvider>
    </SWRConfig>,
  );
  return authorize;
}

/** A move of the summariser to a dedicated spot L4: spot in production needs approval. */
function spotRecommendation(): Recommendation {
  return {
    ...rightSizeRecommendation(),
    kind: 'right-size',
    title: 'Move to a spot L4',
    target: { tier: 'dedicated', pool: 'spot-l4', gpuEquivalents: 1 },
  };
}

describe('Decommission from the entity', () => {
  it('says what it frees, deletes through the backend after the confirmation, and shows the service decommissioned', async () => {
    const api = backend();
    const authorize = await renderCard(api);
    const button = await screen.findByRole('button', { name: 'Decommission' });
    await waitFor(() => expect(button).toBeEnabled());
    expect(authorize).toHaveBeenCalledWith(
      expect.objectContaining({
        permission: expect.objectContaining({ name: 'gpu.service.delete' }),
        resourceRef: service.id,
      }),
    );

    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog', {
      name: 'Decommission summariser?',
    });
    const effect = within(dialog).getByTestId('decommission-effect');
    expect(effect).toHaveTextContent(
      'Frees 1 whole GPU (1 replica, dedicated on l4-ondemand).',
    );
    expect(effect).toHaveTextContent(
      "Releases 1 GPU-equivalent of team ml-platform's quota on l4-ondemand.",
    );
    expect(effect).toHaveTextContent(
      `Stops ${service.monthlyCost} a month of allocation cost.`,
    );
    // The template unregisters the component by default; the card's path does not, and says how they differ.
    expect(effect).toHaveTextContent(
      'Unlike the Decommission GPU model service template, this keeps the catalog component: unregister it from its page if it describes nothing else.',
    );
    expect(api.callsOf('deleteService')).toHaveLength(0);

    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Decommission' }),
    );
    expect(await screen.findByTestId('lifecycle-deleted')).toHaveTextContent(
      'Decommissioned',
    );
    expect(api.callsOf('deleteService')).toEqual([[service.id]]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Decommission' })).toBeNull();
  });

  it('does nothing on Cancel', async () => {
    const api = backend();
    await renderCard(api);
    const button = await screen.findByRole('button', { name: 'Decommission' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    await userEvent.click(
      await screen.findByRole('button', { name: 'Cancel' }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsOf('deleteService')).toHaveLength(0);
  });

  it("keeps the dialog open with the backend's message when the delete fails", async () => {
    const api = backend();
    api.failNextChange = () =>
      responseError(
        403,
        'Forbidden',
        'NotAllowedError',
        'delete GPU service summariser of team ml-platform: not allowed',
      );
    await renderCard(api);
    const button = await screen.findByRole('button', { name: 'Decommission' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Decommission' }),
    );
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Could not decommission: delete GPU service summariser of team ml-platform: not allowed',
    );
    expect(screen.queryByTestId('lifecycle-deleted')).toBeNull();
  });

  it('is disabled without gpu.service.delete on the service', async () => {
    const api = backend([rightSizeRecommendation()]);
    await renderCard(api, false);
    await screen.findByTestId('figure-month-to-date');
    const button = screen.getByRole('button', { name: 'Decommission' });
    await waitFor(() =>
      expect(button.closest('button') ?? button).toBeDisabled(),
    );
    expect(
      screen.getByRole('button', { name: 'Apply recommendation' }),
    ).toBeDisabled();
  });

  it('says that a request waiting for approval frees nothing when withdrawn', async () => {
    const api = backend([], { ...service, status: 'pending-approval' });
    await renderCard(api);
    const button = await screen.findByRole('button', { name: 'Decommission' });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    expect(await screen.findByTestId('decommission-effect')).toHaveTextContent(
      'Withdraws the request waiting for approval: nothing is held, so no GPUs, quota or cost are freed.',
    );
  });
});

describe('Apply recommendation from the entity', () => {
  it('shows the cost effect, the slice the backend will pick and that no approval is needed, then changes the service with PATCH', async () => {
    const recommendation = rightSizeRecommendation();
    const api = backend([recommendation]);
    const authorize = await renderCard(api);
    const button = await screen.findByRole('button', {
      name: 'Apply recommendation',
    });
    await waitFor(() => expect(button).toBeEnabled());
    expect(authorize).toHaveBeenCalledWith(
      expect.objectContaining({
        permission: expect.objectContaining({ name: 'gpu.service.update' }),
        resourceRef: service.id,
      }),
    );
    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog', {
      name: recommendation.title,
    });
    expect(dialog).toHaveTextContent(
      `Moves summariser from dedicated on l4-ondemand (${service.monthlyCost} a month) to mig 1g.10gb on a100-mig.`,
    );
    const quote = await api.quote({
      ...service.request,
      tier: 'mig',
      pool: 'a100-mig',
    });
    // The summariser's 8B model in bf16 does not fit the recommended 1g.10gb slice: the backend's re-quote on the
    // pool picks a larger MIG slice, which costs more than the dedicated L4, and the dialog says both.
    const proposed = quote.recommended!;
    expect(proposed.slice.migProfile).not.toBe('1g.10gb');
    const extra = proposed.cost.monthly - monthlyCostMicros(service);
    expect(extra).toBeGreaterThan(0);
    expect(await within(dialog).findByTestId('change-slice')).toHaveTextContent(
      `the backend places it on ${proposed.slice.migProfile} instead`,
    );
    expect(within(dialog).getByTestId('change-cost')).toHaveTextContent(
      `New cost ${formatUsd(proposed.cost.monthly)} a month: costs ${formatUsd(
        extra,
      )} more a month.`,
    );
    expect(within(dialog).getByTestId('change-approval')).toHaveTextContent(
      'No approval needed: the change is applied at once.',
    );

    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Apply the change' }),
    );
    expect(api.callsOf('updateService')).toEqual([
      [service.id, { tier: 'mig', pool: 'a100-mig' }],
    ]);
    expect(
      await screen.findByText(
        new RegExp(`^mig ${proposed.slice.migProfile} on a100-mig · `),
      ),
    ).toBeInTheDocument();
  });

  it('says that a change needs approval and why, and shows it waiting once requested', async () => {
    const api = backend([spotRecommendation()]);
    await renderCard(api);
    const button = await screen.findByRole('button', {
      name: 'Apply recommendation',
    });
    await waitFor(() => expect(button).toBeEnabled());
    await userEvent.click(button);
    const dialog = await screen.findByRole('dialog');
    expect(
      await within(dialog).findByTestId('change-approval'),
    ).toHaveTextContent(
      /^Needs approval: .*spot.*keeps its current placement/i,
    );
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Request the change' }),
    );
    expect(await screen.findByTestId('lifecycle-pending')).toHaveTextContent(
      'Change waiting for approval',
    );
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      'Still holds 1 GPU-equivalent dedicated on l4-ondemand',
    );
    expect(
      screen.queryByRole('button', { name: 'Apply recommendation' }),
    ).toBeNull();
  });

  it('offers nothing for a recommendation without a target (idle, scale to zero)', async () => {
    const idle: Recommendation = {
      ...rightSizeRecommendation(),
      kind: 'idle',
      title: 'Idle: scale it down',
      target: undefined,
    };
    const api = backend([idle]);
    await renderCard(api);
    expect(await screen.findByText(/Idle: scale it down/)).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Apply recommendation' }),
    ).toBeNull();
  });
});
