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
import { cleanup, configure, screen } from '@testing-library/react';
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

/** The approval of the summariser's request: over the team's quota of dedicated L4s, asked for by bob. */
const approval = {
  id: 'approval-1',
  serviceId: base.id,
  team: 'ml-platform',
  kind: 'create' as const,
  state: 'pending' as const,
  reasons: [
    {
      code: 'over-quota',
      message: 'Needs 1 GPU-equivalent on l4-ondemand; 0 of 2 left',
    },
  ],
  requestedBy: 'user:default/bob',
  requestedAt: '2026-11-14T09:30:00.000Z',
};

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

function expectNoErrorOrCost() {
  expect(screen.queryByText(/HTTP 404/)).toBeNull();
  expect(screen.queryAllByText(/Could not load/)).toHaveLength(0);
  expect(screen.queryByTestId('fallback-monthly-cost')).toBeNull();
  expect(screen.queryByTestId('figure-month-to-date')).toBeNull();
}

describe('GpuServiceCard for services that do not run', () => {
  it('shows a request waiting for approval: who asked, why it waits, nothing held yet, and reads no cost', async () => {
    const api = backend({
      ...base,
      status: 'pending-approval',
      statusReason: undefined,
      approval,
    });
    await renderCard(api);

    const notice = await screen.findByTestId('lifecycle-pending');
    expect(notice).toHaveTextContent('Waiting for approval');
    expect(notice).toHaveTextContent(
      'Requested by bob on 2026-11-14 09:30 UTC.',
    );
    expect(notice).toHaveTextContent(
      'Needs 1 GPU-equivalent on l4-ondemand; 0 of 2 left',
    );
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      `Nothing is held yet: approving reserves 1 GPU-equivalent dedicated on l4-ondemand (${base.monthlyCost} a month).`,
    );
    expectNoErrorOrCost();
    expect(api.callsOf('getServiceCost')).toHaveLength(0);
    expect(api.callsOf('getServiceUsage')).toHaveLength(0);
    // A request can be withdrawn.
    expect(
      screen.getByRole('button', { name: 'Decommission' }),
    ).toBeInTheDocument();
  });

  it('shows why a request waits now: once the quota was raised, no over-quota reason, only the decision left', async () => {
    // GET /services/:id weighs the pending approval again: the quota raised since the request leaves no reason.
    const api = backend({
      ...base,
      status: 'pending-approval',
      reason: 'AwaitingApproval',
      statusReason:
        'Within quota, budget, pool capacity and policy now; waiting for an approver to decide',
      approval: { ...approval, reasons: [] },
    });
    await renderCard(api);

    const notice = await screen.findByTestId('lifecycle-pending');
    expect(notice).toHaveTextContent('Waiting for approval');
    expect(notice).not.toHaveTextContent('0 of 2 left');
    expect(notice).toHaveTextContent(
      "It fits the team's quota and budget, the pool and the policy now: nothing holds it back but an approver's decision.",
    );
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      'Nothing is held yet',
    );
  });

  it('shows a change waiting for approval with what the running service still holds, and its figures', async () => {
    const api = backend({
      ...base,
      status: 'ready',
      approval: { ...approval, kind: 'change' },
    });
    await renderCard(api);

    const notice = await screen.findByTestId('lifecycle-pending');
    expect(notice).toHaveTextContent('Change waiting for approval');
    expect(notice).toHaveTextContent('(a change of the running service)');
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      `Still holds 1 GPU-equivalent dedicated on l4-ondemand (${base.monthlyCost} a month) until the change is approved.`,
    );
    expect(
      await screen.findByTestId('figure-month-to-date'),
    ).toBeInTheDocument();
  });

  it('shows a rejected request: by whom, the comment, nothing held, and reads no cost', async () => {
    const api = backend({
      ...base,
      status: 'rejected',
      statusReason: undefined,
      approval: {
        ...approval,
        state: 'rejected',
        decidedBy: 'user:default/alice',
        decidedAt: '2026-11-14T10:00:00.000Z',
        comment: 'Use a MIG slice: the report summariser fits 1g.10gb',
      },
    });
    await renderCard(api);

    const notice = await screen.findByTestId('lifecycle-rejected');
    expect(notice).toHaveTextContent('Request rejected');
    expect(notice).toHaveTextContent(
      'Rejected by alice on 2026-11-14 10:00 UTC.',
    );
    expect(notice).toHaveTextContent(
      'Comment: “Use a MIG slice: the report summariser fits 1g.10gb”',
    );
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      'Nothing is held: no GPUs, quota or cost.',
    );
    expectNoErrorOrCost();
    expect(api.callsOf('getServiceCost')).toHaveLength(0);
    expect(screen.queryByRole('button', { name: 'Decommission' })).toBeNull();
  });

  it('shows a deleted service: when, nothing held, and what it cost this month', async () => {
    const api = backend({
      ...base,
      status: 'deleted',
      statusReason: 'torn down by guest',
      updatedAt: '2026-11-15T08:00:00.000Z',
    });
    // As the cost route answers a deleted service: its reservations released, nothing projected after today.
    api.cost = async () => {
      const cost = summariserCost(summariserUsage());
      return {
        ...cost,
        monthlyAllocationMicros: 0,
        projectedMonthMicros: cost.monthToDate.allocationMicros,
      };
    };
    await renderCard(api);

    const notice = await screen.findByTestId('lifecycle-deleted');
    expect(notice).toHaveTextContent('Decommissioned');
    expect(notice).toHaveTextContent('Deleted on 2026-11-15 08:00 UTC.');
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      'Nothing is held: its GPUs and quota were released.',
    );
    expect(
      await screen.findByTestId('figure-month-to-date'),
    ).toBeInTheDocument();
    // No price "held" beside "Nothing is held" (issue 25).
    const projected = screen.getByTestId('figure-projected');
    expect(projected).toHaveTextContent(
      /\d\d-day calendar month; nothing is held now, so nothing more is added/,
    );
    expect(projected).not.toHaveTextContent(/billing month held/);
    expect(screen.queryByRole('button', { name: 'Decommission' })).toBeNull();
  });

  it('names the retry template for a GitOps service the backend says may be retried, and only then', async () => {
    const deletedGitOps = (fields: Partial<GpuServiceView>) =>
      backend({
        ...base,
        mode: 'gitops',
        status: 'deleted',
        reason: 'Deleted',
        ...fields,
      });
    await renderCard(
      deletedGitOps({
        reason: 'PullRequestClosed',
        statusReason: 'Its pull request was closed without merging',
        retriableEnd: 'closed',
      }),
    );
    expect(await screen.findByTestId('lifecycle-deleted')).toHaveTextContent(
      /retried through a new pull request with the template “Retry GPU model service \(GitOps\)”/,
    );
    cleanup();

    // Never confirmed: the template run stopped before it recorded its pull request (the reason alone is Deleted).
    await renderCard(
      deletedGitOps({ confirmBy: base.createdAt, retriableEnd: 'unconfirmed' }),
    );
    expect(await screen.findByTestId('lifecycle-deleted')).toHaveTextContent(
      /Retry GPU model service \(GitOps\)/,
    );
    cleanup();

    // A decommission on purpose is not undone by a retry.
    await renderCard(deletedGitOps({}));
    expect(
      await screen.findByTestId('lifecycle-deleted'),
    ).not.toHaveTextContent(/Retry GPU model service/);
  });

  it('says nothing held instead of an allocation when the cost of a deleted service cannot be read', async () => {
    const api = backend({ ...base, status: 'deleted' });
    api.cost = async () => {
      throw new Error('cost route down');
    };
    await renderCard(api);
    expect(
      (await screen.findAllByText(/cost route down/)).length,
    ).toBeGreaterThan(0);
    expect(screen.queryByTestId('fallback-monthly-cost')).toBeNull();
    expect(screen.getByTestId('lifecycle-held')).toHaveTextContent(
      'Nothing is held',
    );
  });

  it('keeps the dry run state of an approved service: reserved, nothing running', async () => {
    const api = backend(base);
    api.cost = async () => ({
      ...summariserCost(summariserUsage()),
      accrualBasis: 'dry-run',
    });
    await renderCard(api);
    expect(await screen.findByTestId('accrual-notice')).toHaveTextContent(
      'dry run, nothing is running',
    );
    expect(screen.queryByTestId(/^lifecycle-/)).toBeNull();
  });
});
