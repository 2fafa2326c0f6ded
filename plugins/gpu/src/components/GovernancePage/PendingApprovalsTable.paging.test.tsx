import { entityRouteRef } from '@backstage/plugin-catalog-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { identityApiRef } from '@backstage/frontend-plugin-api';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import {
  allocationCost,
  findPool,
  formatUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SWRConfig } from 'swr';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { platform, summariserService } from '../../__testUtils__/gpuFixtures';
import { PendingApprovalsTable } from './PendingApprovalsTable';

jest.setTimeout(60_000);
configure({ asyncUtilTimeout: 10_000 });
const user = userEvent.setup({ delay: null });

const pool = findPool(platform, 'l4-ondemand');
const monthly = (gpus: number) =>
  allocationCost(pool, gpus, platform.hoursPerMonth);

/** The OCR batch case: 46 requests of two dedicated L4s each from ml-platform, which holds 3 of its 4 already. */
function fortySixRequests(api: FakeGpuApi) {
  for (let i = 1; i <= 46; i++) {
    const service = summariserService({
      id: `svc-${i}`,
      name: `ocr-${String(i).padStart(2, '0')}`,
      status: 'pending-approval',
      gpuEquivalents: 2,
      monthlyCost: formatUsd(monthly(2)),
    });
    service.request = { ...service.request, replicas: 2 };
    api.services.set(service.id, service);
    api.approvals.push({
      id: `appr-${i}`,
      serviceId: service.id,
      team: 'ml-platform',
      kind: 'create',
      state: 'pending',
      reasons: [{ code: 'over-quota', message: 'over quota on l4-ondemand' }],
      requestedBy: 'user:default/bob',
      requestedAt: new Date(Date.now() - (47 - i) * 60_000).toISOString(),
      overage: {
        computedAt: new Date().toISOString(),
        overQuota: true,
        monthlyCostMicros: monthly(2),
        pools: [
          {
            pool: 'l4-ondemand',
            quotaGpuEquivalents: 4,
            heldGpuEquivalents: 3,
            requestedGpuEquivalents: 2,
            overGpuEquivalents: 1,
            overMonthlyCostMicros: monthly(1),
            capacityGpuEquivalents: 8,
            poolHeldGpuEquivalents: 3,
          },
        ],
        budget: {
          monthlyBudgetMicros: 2_000_000_000,
          committedMonthlyCostMicros: 1_500_000_000,
          overMonthlyCostMicros: 1_500_000_000 + monthly(2) - 2_000_000_000,
          month: '2026-12',
          monthToDateMicros: 0,
          projectedMonthMicros: 0,
          overProjectedMicros: 0,
        },
      },
    });
  }
}

async function renderTable(api: FakeGpuApi) {
  await renderInTestApp(
    <SWRConfig value={{ provider: () => new Map() }}>
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [
            permissionApiRef,
            mockApis.permission({ authorize: AuthorizeResult.ALLOW }),
          ],
          [
            identityApiRef,
            mockApis.identity({ userEntityRef: 'user:default/alice' }),
          ],
        ]}
      >
        <PendingApprovalsTable />
      </TestApiProvider>
    </SWRConfig>,
    { mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef } },
  );
}

/** The first page of the queue as the table asks for it: oldest first, the Requested column's default sort. */
const QUEUE = {
  state: 'pending',
  limit: 10,
  orderBy: 'requestedAt',
  order: 'asc',
} as const;

/** The service names of the rows shown. */
/** Clicks Next Page once the table has enabled it (it is disabled until the page's count has arrived). */
async function nextPage() {
  const button = screen.getByRole('button', { name: 'Next Page' });
  await waitFor(() => expect(button).toBeEnabled());
  await user.click(button);
}

function shownServices(): string[] {
  return screen
    .getAllByRole('button', { name: /^approve / })
    .map(b => b.getAttribute('aria-label')!.replace('approve ', ''));
}

describe('PendingApprovalsTable with 46 requests', () => {
  it('shows a page at a time from the server, with one request per page and none per approval', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    await renderTable(api);

    await waitFor(() => expect(shownServices()).toHaveLength(10));
    expect(shownServices()[0]).toBe('ocr-01');
    expect(screen.getAllByText('1-10 of 46').length).toBeGreaterThan(0);
    expect(api.callsOf('listApprovals')).toEqual([[QUEUE]]);
    expect(api.callsOf('getService')).toEqual([]);

    await nextPage();
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-11'));
    expect(screen.getAllByText('11-20 of 46').length).toBeGreaterThan(0);
    expect(api.callsOf('listApprovals')).toEqual([
      [QUEUE],
      [{ ...QUEUE, cursor: 'requestedAt.asc:10' }],
    ]);
    expect(api.callsOf('getService')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Previous Page' }));
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-01'));
  });

  it('searches on the server and starts again at the first page', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    await renderTable(api);
    await waitFor(() => expect(shownServices()).toHaveLength(10));
    await nextPage();
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-11'));

    await user.type(
      screen.getByRole('textbox', { name: 'Search pending approvals' }),
      'ocr-4',
    );
    await waitFor(() =>
      expect(shownServices()).toEqual([
        'ocr-40',
        'ocr-41',
        'ocr-42',
        'ocr-43',
        'ocr-44',
        'ocr-45',
        'ocr-46',
      ]),
    );
    expect(api.callsOf('listApprovals').at(-1)).toEqual([
      { ...QUEUE, search: 'ocr-4' },
    ]);
    expect(screen.getAllByText('1-7 of 7').length).toBeGreaterThan(0);
  });

  it('sorts on the server from the column headers, back on the first page in one request', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    await renderTable(api);
    await waitFor(() => expect(shownServices()).toHaveLength(10));
    expect(screen.getByText('Oldest first')).toBeInTheDocument();
    await nextPage();
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-11'));

    const before = api.callsOf('listApprovals').length;
    await user.click(screen.getByRole('button', { name: 'Service' }));
    await user.click(screen.getByRole('button', { name: 'Service' }));
    await waitFor(() =>
      expect(shownServices()).toEqual(
        Array.from({ length: 10 }, (_, i) => `ocr-${46 - i}`),
      ),
    );
    expect(screen.getAllByText('1-10 of 46').length).toBeGreaterThan(0);
    expect(screen.getByText('By service, Z to A')).toBeInTheDocument();
    // Each click one request for the first page, no cursor: ascending, then descending.
    expect(api.callsOf('listApprovals').slice(before)).toEqual([
      [{ ...QUEUE, orderBy: 'service', order: 'asc' }],
      [{ ...QUEUE, orderBy: 'service', order: 'desc' }],
    ]);

    // The next page follows in that order, with the cursor the server gave.
    await nextPage();
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-36'));
    expect(api.callsOf('listApprovals').at(-1)).toEqual([
      {
        ...QUEUE,
        orderBy: 'service',
        order: 'desc',
        cursor: 'service.desc:10',
      },
    ]);
    expect(api.callsOf('getService')).toEqual([]);
  });

  it('sorts by the cost each request asks for, a change by its new cost', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    // ocr-07 asks to change to one GPU; ocr-09 to four.
    for (const [i, gpus] of [
      [7, 1],
      [9, 4],
    ] as const) {
      const approval = api.approvals[i - 1];
      approval.kind = 'change';
      approval.overage = {
        ...approval.overage!,
        monthlyCostMicros: monthly(gpus),
      };
    }
    await renderTable(api);
    await waitFor(() => expect(shownServices()).toHaveLength(10));
    const costOf = (name: string) =>
      within(
        screen.getByRole('button', { name: `approve ${name}` }).closest('tr')!,
      );
    expect(
      costOf('ocr-09').getByText(formatUsd(monthly(4))),
    ).toBeInTheDocument();
    expect(
      costOf('ocr-09').getByText(`now ${formatUsd(monthly(2))}`),
    ).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Monthly cost' }));
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-07'));
    expect(screen.getByText('Cheapest first')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Monthly cost' }));
    await waitFor(() => expect(shownServices()[0]).toBe('ocr-09'));
    expect(screen.getByText('Dearest first')).toBeInTheDocument();
    expect(api.callsOf('listApprovals').at(-1)).toEqual([
      { ...QUEUE, orderBy: 'monthlyCost', order: 'desc' },
    ]);
    // The reasons and the decision buttons do not sort.
    expect(
      screen.queryByRole('button', { name: 'Why it needs approval' }),
    ).not.toBeInTheDocument();
    // Each sort arrow sits in its header's padding: sorting widens no column.
    const arrows = document.querySelectorAll('th .MuiTableSortLabel-icon');
    expect(arrows).toHaveLength(4);
    for (const arrow of arrows) {
      expect(getComputedStyle(arrow).position).toBe('absolute');
    }
  });

  it('keeps the decision buttons on one line', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    await renderTable(api);
    const approve = await screen.findByRole('button', {
      name: 'approve ocr-01',
    });
    const reject = screen.getByRole('button', { name: 'reject ocr-01' });
    for (const button of [approve, reject]) {
      expect(getComputedStyle(button).whiteSpace).toBe('nowrap');
      expect(getComputedStyle(button.closest('td')!).whiteSpace).toBe('nowrap');
    }
  });

  it('shows the cost, the quota effect and the overage in the dialog, with the override off', async () => {
    const api = new FakeGpuApi();
    fortySixRequests(api);
    await renderTable(api);
    // Query afresh: the rows re-render while the permission and the identity load.
    await waitFor(() =>
      expect(
        screen.getByRole('button', { name: 'approve ocr-03' }),
      ).toBeEnabled(),
    );
    await user.click(screen.getByRole('button', { name: 'approve ocr-03' }));
    const dialog = await screen.findByRole('dialog', {
      name: 'Approve ocr-03',
    });
    expect(within(dialog).getByTestId('decision-summary')).toHaveTextContent(
      'llama-3.1-8b, dedicated on l4-ondemand, 2 replicas (2 GPU-equivalents), production (team ml-platform)',
    );
    expect(within(dialog).getByTestId('decision-cost')).toHaveTextContent(
      `${formatUsd(monthly(2))} a month`,
    );
    // The reasons in full: the table shows each on one line, cut to fit.
    expect(within(dialog).getByTestId('decision-reasons')).toHaveTextContent(
      'over quota on l4-ondemand',
    );
    expect(
      within(dialog).getByTestId('decision-quota-effect'),
    ).toHaveTextContent(
      `l4-ondemand: 3 of 4 GPU-equivalents held; approving makes it 5 of 4, 1 over quota (${formatUsd(
        monthly(1),
      )} a month).`,
    );
    expect(
      within(dialog).getByTestId('decision-quota-effect'),
    ).toHaveTextContent(
      `Budget: $1,500.00 of $2,000.00 a month held; approving makes it ${formatUsd(
        1_500_000_000 + monthly(2),
      )}, ${formatUsd(
        1_500_000_000 + monthly(2) - 2_000_000_000,
      )} a month over budget.`,
    );
    expect(within(dialog).getByTestId('approval-overage')).toHaveTextContent(
      `1 GPU-equivalent over quota in pool l4-ondemand (${formatUsd(
        monthly(1),
      )} a month)`,
    );
    const override = within(dialog).getByRole('checkbox', {
      name: "Approve even if it does not fit the team's quota or budget",
    });
    expect(override).not.toBeChecked();
    // Over quota, Approve waits for the explicit choice.
    expect(
      within(dialog).getByRole('button', { name: 'Approve' }),
    ).toBeDisabled();
    await user.click(override);
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(api.callsOf('decideApproval')).toEqual([
      ['appr-3', 'approve', { allowOverQuota: true }],
    ]);
  });
});
