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
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
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

function backend(svc: GpuServiceView = service): FakeGpuApi {
  const api = new FakeGpuApi();
  api.services.set(svc.id, svc);
  api.usage = async () => summariserUsage();
  api.cost = async () => summariserCost(summariserUsage(), []);
  return api;
}

async function renderCard(api: FakeGpuApi, allow = true) {
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [
            permissionApiRef,
            mockApis.permission({
              authorize: allow ? AuthorizeResult.ALLOW : AuthorizeResult.DENY,
            }),
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

async function openDialog(api: FakeGpuApi) {
  await renderCard(api);
  const button = await screen.findByRole('button', {
    name: 'Change tier or size',
  });
  await waitFor(() => expect(button).toBeEnabled());
  await userEvent.click(button);
  return screen.findByRole('dialog', {
    name: 'Change tier or size of summariser',
  });
}

describe('Change tier or size from the entity', () => {
  it('quotes more replicas with the cost before and after, then changes the service with PATCH', async () => {
    const api = backend();
    const dialog = await openDialog(api);
    expect(within(dialog).getByTestId('change-now')).toHaveTextContent(
      `Now: dedicated on l4-ondemand, 1 replica, ${service.monthlyCost} a month.`,
    );
    const apply = within(dialog).getByRole('button', {
      name: 'Apply the change',
    });
    expect(apply).toBeDisabled();

    const replicas = within(dialog).getByRole('spinbutton', {
      name: 'Replicas',
    });
    await userEvent.clear(replicas);
    await userEvent.type(replicas, '2');
    const proposed = (
      await api.quote({
        ...service.request,
        tier: 'dedicated',
        pool: 'l4-ondemand',
        replicas: 2,
      })
    ).recommended!;
    const extra = proposed.cost.monthly - monthlyCostMicros(service);
    expect(extra).toBeGreaterThan(0);
    await waitFor(() =>
      expect(within(dialog).getByTestId('change-cost')).toHaveTextContent(
        `After: dedicated on l4-ondemand, 2 replicas, ${formatUsd(
          proposed.cost.monthly,
        )} a month: costs ${formatUsd(extra)} more a month.`,
      ),
    );
    expect(within(dialog).getByTestId('change-approval')).toHaveTextContent(
      'No approval needed: the change is applied at once.',
    );

    await waitFor(() => expect(apply).toBeEnabled());
    await userEvent.click(apply);
    expect(api.callsOf('updateService')).toEqual([
      [service.id, { tier: 'dedicated', pool: 'l4-ondemand', replicas: 2 }],
    ]);
    expect(
      await screen.findByText(/^dedicated on l4-ondemand · 2 replicas, /),
    ).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('offers the tiers and pools the model fits and says which slice and cost another tier gets', async () => {
    const api = backend();
    const dialog = await openDialog(api);
    const select = within(dialog).getByRole('combobox', {
      name: 'Tier and pool',
    });
    await waitFor(() =>
      expect(
        within(select).getByRole('option', { name: 'mig on a100-mig' }),
      ).toBeInTheDocument(),
    );
    // Production allows dedicated and MIG only.
    expect(
      within(select).queryByRole('option', { name: /^mps on / }),
    ).toBeNull();

    await userEvent.selectOptions(select, 'mig/a100-mig');
    const proposed = (
      await api.quote({
        ...service.request,
        tier: 'mig',
        pool: 'a100-mig',
      })
    ).recommended!;
    await waitFor(() =>
      expect(within(dialog).getByTestId('change-cost')).toHaveTextContent(
        `After: mig ${
          proposed.slice.migProfile
        } on a100-mig, 1 replica, ${formatUsd(proposed.cost.monthly)} a month`,
      ),
    );
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Apply the change' }),
    );
    expect(api.callsOf('updateService')).toEqual([
      [service.id, { tier: 'mig', pool: 'a100-mig', replicas: 1 }],
    ]);
  });

  it('says when a change needs approval and why, and shows it waiting once requested', async () => {
    const api = backend();
    const dialog = await openDialog(api);
    const select = within(dialog).getByRole('combobox', {
      name: 'Tier and pool',
    });
    await waitFor(() =>
      expect(
        within(select).getByRole('option', { name: 'dedicated on spot-l4' }),
      ).toBeInTheDocument(),
    );
    await userEvent.selectOptions(select, 'dedicated/spot-l4');
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
    expect(
      screen.queryByRole('button', { name: 'Change tier or size' }),
    ).toBeNull();
  });

  it('refuses a number of replicas outside 1 to 64 without asking the backend', async () => {
    const api = backend();
    const dialog = await openDialog(api);
    const replicas = within(dialog).getByRole('spinbutton', {
      name: 'Replicas',
    });
    await userEvent.clear(replicas);
    await userEvent.type(replicas, '0');
    expect(
      await within(dialog).findByText(
        'Replicas must be a whole number from 1 to 64',
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByRole('button', { name: 'Apply the change' }),
    ).toBeDisabled();
    expect(
      api
        .callsOf('quote')
        .some(([request]) => (request as ServiceRequest).replicas === 0),
    ).toBe(false);
  });

  it('keeps the dialog open with the backend message when the change is refused', async () => {
    const api = backend();
    const dialog = await openDialog(api);
    const replicas = within(dialog).getByRole('spinbutton', {
      name: 'Replicas',
    });
    await userEvent.clear(replicas);
    await userEvent.type(replicas, '2');
    api.failNextChange = () =>
      responseError(
        409,
        'Conflict',
        'ConflictError',
        'Service summariser is applying; try again when it is done',
      );
    const apply = within(dialog).getByRole('button', {
      name: 'Apply the change',
    });
    await waitFor(() => expect(apply).toBeEnabled());
    await userEvent.click(apply);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Could not change summariser: Service summariser is applying; try again when it is done',
    );
  });

  it('is disabled without gpu.service.update on the service', async () => {
    await renderCard(backend(), false);
    await screen.findByTestId('figure-month-to-date');
    await waitFor(() =>
      expect(
        screen.getByRole('button', { name: 'Change tier or size' }),
      ).toBeDisabled(),
    );
  });
});
