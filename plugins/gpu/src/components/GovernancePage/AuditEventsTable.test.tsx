import {
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { entityRouteRef } from '@backstage/plugin-catalog-react';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { summariserService } from '../../__testUtils__/gpuFixtures';
import { AuditEventsTable } from './AuditEventsTable';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });
const user = userEvent.setup({ delay: null });

async function renderTable(api: FakeGpuApi, teams?: string[]) {
  await renderInTestApp(
    <TestApiProvider apis={[[gpuApiRef, api]]}>
      <AuditEventsTable teams={teams} />
    </TestApiProvider>,
    { mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef } },
  );
}

function rowTexts(): string[] {
  // The body's rows: the pagination is a row of the table's footer.
  return [...document.querySelectorAll<HTMLElement>('tbody tr')].map(
    row => within(row).getAllByRole('cell')[1].textContent ?? '',
  );
}

describe('AuditEventsTable', () => {
  it('reads the trail as sentences naming the service, linked to its entity', async () => {
    const api = new FakeGpuApi();
    const summariser = summariserService();
    api.services.set(summariser.id, summariser);
    api.addAudit(
      'service.create',
      'service',
      summariser.id,
      'ml-platform',
      undefined,
      {
        name: 'summariser',
        status: 'approved',
      },
    );
    api.addAudit(
      'reservation.hold',
      'reservation',
      'r-1',
      'ml-platform',
      undefined,
      {
        serviceId: summariser.id,
        pool: 'l4-ondemand',
        gpuEquivalents: 1,
        monthlyCostMicros: 587_500_000,
      },
    );
    await renderTable(api);

    await waitFor(() =>
      expect(rowTexts()).toEqual([
        'guest held 1 GPU-equivalent on l4-ondemand ($587.50 a month) for summariser (team ml-platform).',
        'guest created service summariser (team ml-platform), status approved.',
      ]),
    );
    for (const link of screen.getAllByRole('link', { name: 'summariser' })) {
      expect(link).toHaveAttribute(
        'href',
        '/catalog/default/component/summariser',
      );
    }
    expect(screen.getAllByRole('link', { name: 'summariser' })).toHaveLength(2);
  });

  it('pages the trail from the server with its cursors', async () => {
    const api = new FakeGpuApi();
    for (let i = 1; i <= 25; i++) {
      api.addAudit('quota.put', 'quota', `team-${i}`, `team-${i}`, undefined, {
        pools: {},
        monthlyBudgetMicros: i * 1_000_000,
      });
    }
    await renderTable(api);
    await waitFor(() => expect(rowTexts()).toHaveLength(20));
    expect(rowTexts()[0]).toBe(
      'guest set the quota of team team-25: no pool, budget $25.00 a month.',
    );
    expect(screen.getAllByText('1-20 of 25').length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));
    expect(rowTexts()[4]).toBe(
      'guest set the quota of team team-1: no pool, budget $1.00 a month.',
    );
    expect(api.callsOf('listAuditEvents')).toEqual([
      [{ limit: 20, cursor: undefined, order: 'desc' }],
      [{ limit: 20, cursor: '6', order: 'desc' }],
    ]);
  });

  it('reads the trail oldest first from the When header, back on the first page in one request', async () => {
    const api = new FakeGpuApi();
    for (let i = 1; i <= 25; i++) {
      api.addAudit('quota.put', 'quota', `team-${i}`, `team-${i}`, undefined, {
        pools: {},
        monthlyBudgetMicros: i * 1_000_000,
      });
    }
    await renderTable(api);
    await waitFor(() => expect(rowTexts()).toHaveLength(20));
    expect(screen.getByText('Newest first')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));

    await user.click(screen.getByRole('button', { name: 'When' }));
    await waitFor(() =>
      expect(rowTexts()[0]).toBe(
        'guest set the quota of team team-1: no pool, budget $1.00 a month.',
      ),
    );
    expect(rowTexts()).toHaveLength(20);
    expect(screen.getByText('Oldest first')).toBeInTheDocument();
    expect(api.callsOf('listAuditEvents').at(-1)).toEqual([
      { limit: 20, cursor: undefined, order: 'asc' },
    ]);
    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));
    expect(rowTexts()[4]).toBe(
      'guest set the quota of team team-25: no pool, budget $25.00 a month.',
    );
    expect(api.callsOf('listAuditEvents').at(-1)).toEqual([
      { limit: 20, cursor: 'asc.20', order: 'asc' },
    ]);
    expect(api.callsOf('listAuditEvents')).toHaveLength(4);
  });

  it('searches the trail on the server, from its first page', async () => {
    const api = new FakeGpuApi();
    for (let i = 1; i <= 25; i++) {
      api.addAudit('quota.put', 'quota', `team-${i}`, `team-${i}`, undefined, {
        pools: {},
        monthlyBudgetMicros: i * 1_000_000,
      });
    }
    await renderTable(api);
    await waitFor(() => expect(rowTexts()).toHaveLength(20));
    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));

    await user.type(
      screen.getByRole('textbox', { name: 'Search the audit trail' }),
      'team-7',
    );
    await waitFor(() =>
      expect(api.callsOf('listAuditEvents').at(-1)).toEqual([
        { limit: 20, cursor: undefined, search: 'team-7', order: 'desc' },
      ]),
    );
    // One request for the typed text (debounced), not one per key.
    expect(
      api
        .callsOf('listAuditEvents')
        .filter(([query]) => (query as { search?: string }).search),
    ).toHaveLength(1);
  });

  it("narrows the trail to one team's events on the server, from its first page", async () => {
    const api = new FakeGpuApi();
    for (let i = 1; i <= 25; i++) {
      const team = i % 5 === 0 ? 'search' : 'ml-platform';
      api.addAudit('quota.put', 'quota', team, team, undefined, {
        pools: {},
        monthlyBudgetMicros: i * 1_000_000,
      });
    }
    await renderTable(api, ['ml-platform', 'search']);
    await waitFor(() => expect(rowTexts()).toHaveLength(20));
    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));

    await user.click(screen.getByRole('button', { name: /^Team All teams/ }));
    await user.click(screen.getByRole('option', { name: 'search' }));
    await waitFor(() => expect(rowTexts()).toHaveLength(5));
    expect(rowTexts()[0]).toBe(
      'guest set the quota of team search: no pool, budget $25.00 a month.',
    );
    expect(rowTexts().every(text => text.includes('team search'))).toBe(true);
    expect(screen.getByText('Audit events of search')).toBeInTheDocument();
    expect(api.callsOf('listAuditEvents').at(-1)).toEqual([
      { limit: 20, cursor: undefined, team: 'search', order: 'desc' },
    ]);
  });
});
