import { entityRouteRef } from '@backstage/plugin-catalog-react';
import {
  allocationCost,
  findPool,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { gpuApiRef } from '../../api';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import {
  overviewFixture,
  platform,
  summariserService,
} from '../../__testUtils__/gpuFixtures';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import { responseError } from '../../__testUtils__/responseError';
import { GovernancePage } from './GovernancePage';

/** Five replicas of the summariser: over ml-platform's 4 GPU quota on l4-ondemand, so it waits for approval. */
function withPendingRequest(api: FakeGpuApi) {
  const pool = findPool(platform, 'l4-ondemand');
  const big = summariserService({
    id: 'svc-big',
    name: 'big-summariser',
    status: 'pending-approval',
    gpuEquivalents: 5,
    monthlyCost: formatUsd(allocationCost(pool, 5, platform.hoursPerMonth)),
  });
  big.request = { ...big.request, name: 'big-summariser', replicas: 5 };
  api.services.set(big.id, big);
  api.approvals.push({
    id: 'appr-1',
    serviceId: big.id,
    team: 'ml-platform',
    kind: 'create',
    state: 'pending',
    reasons: [
      {
        code: 'over-quota',
        message: 'ml-platform would hold 5 of 4 GPU-equivalents in l4-ondemand',
      },
    ],
    requestedBy: 'user:default/bob',
    requestedAt: new Date().toISOString(),
    overage: {
      computedAt: new Date().toISOString(),
      overQuota: true,
      monthlyCostMicros: allocationCost(pool, 5, platform.hoursPerMonth),
      pools: [
        {
          pool: 'l4-ondemand',
          quotaGpuEquivalents: 4,
          heldGpuEquivalents: 0,
          requestedGpuEquivalents: 5,
          overGpuEquivalents: 1,
          overMonthlyCostMicros: allocationCost(
            pool,
            1,
            platform.hoursPerMonth,
          ),
          capacityGpuEquivalents: 4,
          poolHeldGpuEquivalents: 0,
        },
      ],
      budget: {
        monthlyBudgetMicros: 60_000_000_000,
        committedMonthlyCostMicros: 0,
        overMonthlyCostMicros: 0,
        month: '2026-12',
        monthToDateMicros: 0,
        projectedMonthMicros: 0,
        overProjectedMicros: 0,
      },
    },
  });
  return big;
}

async function renderPage(api: FakeGpuApi, allow = true) {
  await renderWithGpuApis(<GovernancePage />, {
    api,
    allow,
    mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
  });
  await screen.findByText('GPU pools');
}

// A whole page of Material UI tables renders in seconds on a busy CI machine.
jest.setTimeout(30_000);
// Rendering and lazy chart modules can take more than the default second on a busy machine.
configure({ asyncUtilTimeout: 10_000 });

const user = userEvent.setup({ delay: null });

/**
 * The button named by its `aria-label`. Not a role query over the whole page: that computes the accessible name of
 * every button on it (getComputedStyle of each, slow in jsdom), and a `waitFor` repeating it took a test past 30 s on a
 * loaded machine.
 */
function buttonLabelled(name: string): HTMLElement {
  return screen.getByLabelText(name, { selector: 'button' });
}

/** Clicks a button once the permission check has enabled it. */
async function clickWhenEnabled(name: string) {
  // Query afresh each time: the table re-renders its rows while data and permissions load.
  await waitFor(() => expect(buttonLabelled(name)).toBeEnabled());
  await user.click(buttonLabelled(name));
}

describe('GovernancePage', () => {
  it('lists pools, tier policy, team quotas and cost, and says when nothing is applied', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderPage(api);
    expect(await screen.findByText('Budget burn')).toBeInTheDocument();
    expect(screen.getByText('Cost leaderboard')).toBeInTheDocument();
    for (const pool of platform.pools) {
      expect(screen.getAllByText(pool.name).length).toBeGreaterThan(0);
    }
    expect(screen.getByText('Tier policy')).toBeInTheDocument();
    expect(screen.getByText('production')).toBeInTheDocument();
    // The limit counts every replica's GPUs, as the quote weighs it.
    expect(
      screen.getByText('Dedicated GPUs without approval (all replicas)'),
    ).toBeInTheDocument();
    expect(screen.getByTestId('cluster-mode')).toHaveTextContent('dry-run');
    expect(
      await screen.findByText('No request is waiting for approval.'),
    ).toBeInTheDocument();
  });

  it('names the clusters and their modes when some are configured', async () => {
    const api = new FakeGpuApi();
    api.platform = { platform, clusters: [{ name: 'prod-eu', mode: 'apply' }] };
    await renderPage(api);
    expect(screen.getByTestId('cluster-mode')).toHaveTextContent(
      'prod-eu (apply)',
    );
  });

  it('shows the backend error instead of the tables', async () => {
    const api = new FakeGpuApi();
    api.getPlatform = () => Promise.reject(new Error('backend down'));
    await renderInTestApp(
      <TestApiProvider apis={[[gpuApiRef, api]]}>
        <GovernancePage />
      </TestApiProvider>,
    );
    expect((await screen.findAllByText(/backend down/)).length).toBeGreaterThan(
      0,
    );
    expect(screen.queryByText('GPU pools')).not.toBeInTheDocument();
  });

  it('shows quota held against nominal per pool and the budget held per team', async () => {
    const api = new FakeGpuApi();
    const pool = findPool(platform, 'l4-ondemand');
    api.quotas.set('ml-platform', {
      ...api.quotas.get('ml-platform')!,
      reservedGpuEquivalents: { 'l4-ondemand': 1, 'a100-mig': 3 / 7 },
      reservedMonthlyCostMicros: allocationCost(
        pool,
        1,
        platform.hoursPerMonth,
      ),
    });
    await renderPage(api);
    const row = await screen.findByTestId('quota-ml-platform');
    expect(within(row).getByText('l4-ondemand: 1 of 4')).toBeInTheDocument();
    expect(within(row).getByText('a100-mig: 0.429 of 4')).toBeInTheDocument();
    expect(within(row).getByText('h100: 0 of 8')).toBeInTheDocument();
    expect(screen.getByText('$587.50 of $60,000.00')).toBeInTheDocument();
    expect(
      within(await screen.findByTestId('quota-search')).getByText(
        'spot-l4: 0 of 6',
      ),
    ).toBeInTheDocument();
  });

  it('approves a pending request with a comment, then refreshes approvals, quota and audit', async () => {
    const api = new FakeGpuApi();
    withPendingRequest(api);
    await renderPage(api);

    expect(await screen.findByText('big-summariser')).toBeInTheDocument();
    // The reason in short words on one line; its whole sentence in the row once asked for. Queried inside its cell:
    // a role query over the whole page is slow enough to time the test out on a loaded machine.
    const words = screen.getByText('Over quota');
    expect(words).toBeVisible();
    const reasons = within(words.closest('td')!);
    const sentence = reasons.getByText(
      'ml-platform would hold 5 of 4 GPU-equivalents in l4-ondemand',
    );
    expect(sentence).not.toBeVisible();
    await user.click(
      reasons.getByRole('button', { name: 'Full reason for big-summariser' }),
    );
    expect(sentence).toBeVisible();
    expect(screen.getByText('$2,937.52')).toBeInTheDocument();

    await clickWhenEnabled('approve big-summariser');
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText(/Comment/), 'launch week');
    // Granting beyond quota is an explicit choice: off until checked; the dialog says by how much.
    const overQuota = within(dialog).getByRole('checkbox');
    expect(overQuota).not.toBeChecked();
    expect(within(dialog).getByTestId('approval-overage')).toHaveTextContent(
      '1 GPU-equivalent over quota in pool l4-ondemand ($587.50 a month)',
    );
    // Approve waits for the choice, and says so next to the box (not below the fold after a refusal).
    const approveButton = within(dialog).getByRole('button', {
      name: 'Approve',
    });
    expect(approveButton).toBeDisabled();
    expect(approveButton).toHaveAccessibleDescription(
      "This request does not fit the team's quota or budget: tick the box above to approve it anyway, or reject it.",
    );
    await user.click(overQuota);
    expect(approveButton).toBeEnabled();
    expect(
      within(dialog).queryByTestId('decision-override-needed'),
    ).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    expect(api.callsOf('decideApproval')).toEqual([
      ['appr-1', 'approve', { comment: 'launch week', allowOverQuota: true }],
    ]);
    // The row and its button are gone: focus goes to what the decision did, not to the page.
    const outcome = await screen.findByTestId('last-decision');
    expect(outcome).toHaveTextContent(
      /^Approved big-summariser: the service is now /,
    );
    await waitFor(() => expect(outcome).toHaveFocus());
    expect(
      await screen.findByText('No request is waiting for approval.'),
    ).toBeInTheDocument();
    expect(
      await within(screen.getByTestId('quota-ml-platform')).findByText(
        'l4-ondemand: 5 of 4',
      ),
    ).toBeInTheDocument();
    await waitFor(() =>
      expect(document.body).toHaveTextContent(
        'guest approved the request for big-summariser (team ml-platform), beyond quota or budget: "launch week".',
      ),
    );
  });

  it('keeps the dialog open with the backend message when a decision fails', async () => {
    const api = new FakeGpuApi();
    withPendingRequest(api);
    // Within quota (another team took the pool meanwhile): Approve is enabled without the override.
    api.approvals[0].overage = {
      ...api.approvals[0].overage!,
      overQuota: false,
    };
    api.failNextChange = () =>
      responseError(
        409,
        'Conflict',
        'ConflictError',
        'Approving would over-allocate l4-ondemand for ml-platform',
      );
    await renderPage(api);

    await clickWhenEnabled('approve big-summariser');
    const dialog = await screen.findByRole('dialog');
    // The checkbox is left unchecked: allowOverQuota is not sent at all.
    expect(within(dialog).getByRole('checkbox')).not.toBeChecked();
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    const refused = await within(dialog).findByRole('alert');
    expect(refused).toHaveTextContent(
      'Approving would over-allocate l4-ondemand for ml-platform (HTTP 409)',
    );
    // Beside the buttons, outside the scrolling content: in view however long the summary (issue 25: the refusal
    // showed below the dialog's fold).
    expect(refused.closest('[class*="MuiDialogContent-root"]')).toBeNull();
    expect(api.callsOf('decideApproval')[0][2]).toEqual({});
    expect(api.approvals[0].state).toBe('pending');
  });

  it('rejects without sending allowOverQuota', async () => {
    const api = new FakeGpuApi();
    withPendingRequest(api);
    await renderPage(api);
    await clickWhenEnabled('reject big-summariser');
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).queryByRole('checkbox')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    expect(api.callsOf('decideApproval')).toEqual([['appr-1', 'reject', {}]]);
    expect(
      await screen.findByText(/Rejected big-summariser/),
    ).toBeInTheDocument();
  });

  it('disables decisions and quota editing without the permissions', async () => {
    const api = new FakeGpuApi();
    withPendingRequest(api);
    await renderPage(api, false);
    await waitFor(() =>
      expect(buttonLabelled('approve big-summariser')).toBeDisabled(),
    );
    expect(buttonLabelled('reject big-summariser')).toBeDisabled();
    expect(
      screen.getByText('You may see requests but not decide them.'),
    ).toBeInTheDocument();
    await waitFor(() =>
      expect(buttonLabelled('Edit quota of ml-platform')).toBeDisabled(),
    );
    // The platform team's sections say whose they are, and are not asked for (they would be refused).
    expect(
      await screen.findByText(
        "The cost and waste of every team are the platform team's (permission gpu.quota.read).",
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        "The platform checks are the platform team's (permission gpu.quota.read).",
      ),
    ).toBeInTheDocument();
    expect(api.callsOf('getOverview')).toEqual([]);
    expect(api.callsOf('getPlatformChecks')).toEqual([]);
  });

  it('edits a quota: refuses invalid input before sending, then saves and shows the new figures', async () => {
    const api = new FakeGpuApi();
    await renderPage(api);
    await clickWhenEnabled('Edit quota of search');
    const dialog = await screen.findByRole('dialog');
    // The dialog is named by its title.
    expect(dialog).toHaveAccessibleName('Quota of search');
    const spot = within(dialog).getByLabelText('Quota in spot-l4');
    expect(spot).toHaveValue('6');
    await user.clear(spot);
    await user.type(spot, '-2');
    const budget = within(dialog).getByLabelText('Monthly budget in USD');
    expect(budget).toHaveValue('4000');
    await user.clear(budget);
    await user.type(budget, '12.345');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    // Each field says what is wrong with it...
    expect(spot).toHaveAccessibleDescription(/not negative/);
    expect(budget).toHaveAccessibleDescription(/dollars and cents/);
    expect(api.callsOf('putTeamQuota')).toEqual([]);
    // ...and a refused Save is announced (one alert naming every field) and the first field to fix has the focus.
    const alert = within(dialog).getByRole('alert');
    expect(alert).toHaveTextContent(
      /^Not saved: quota in spot-l4: .*not negative.*; monthly budget: .*dollars and cents/,
    );
    expect(spot).toHaveFocus();

    await user.clear(spot);
    await user.type(spot, '8');
    await user.clear(budget);
    await user.type(budget, '5000');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(api.callsOf('putTeamQuota')).toEqual([
      [
        'search',
        {
          pools: {
            'l4-ondemand': 2,
            'spot-l4': 8,
            'l4-mps': 1,
            't4-timeslice': 1,
          },
          monthlyBudget: '5000',
        },
      ],
    ]);
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(
      await within(screen.getByTestId('quota-search')).findByText(
        'spot-l4: 0 of 8',
      ),
    ).toBeInTheDocument();
    // The focus is back on the button that opened the dialog, not on the page.
    await waitFor(() =>
      expect(buttonLabelled('Edit quota of search')).toHaveFocus(),
    );
    expect(screen.getByText('$0.00 of $5,000.00')).toBeInTheDocument();
  }, 90_000);

  it('shows why the backend refused a quota change and keeps the dialog open', async () => {
    const api = new FakeGpuApi();
    api.failNextChange = () =>
      responseError(
        403,
        'Forbidden',
        'NotAllowedError',
        'You are not allowed to gpu.quota.update',
      );
    await renderPage(api);
    await clickWhenEnabled('Edit quota of search');
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'You are not allowed to gpu.quota.update (HTTP 403)',
    );
  });

  it('says which team quota could not be read', async () => {
    const api = new FakeGpuApi();
    api.quotas.delete('search');
    await renderPage(api);
    const unread = await screen.findByText(
      'Could not read the quota: the team has no quota record',
    );
    // In a red readable on white (4.5:1), not the theme error.main of Typography color="error" (3.7:1).
    expect(textContrastOnWhite(unread)).toBeGreaterThanOrEqual(4.5);
  });
});
