import { entityRouteRef } from '@backstage/plugin-catalog-react';
import { Overview } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { overviewFixture } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { CostLeaderboard } from './CostLeaderboard';
import { WasteLeaderboard } from './WasteLeaderboard';

// Material Table renders slowly on a loaded machine: a deadline, not a performance target.
jest.setTimeout(60_000);
configure({ asyncUtilTimeout: 10_000 });
const user = userEvent.setup({ delay: null });

/** The fixture's two services and 12 more of the summariser's shape, each costing a dollar more than the last. */
function manyServices(): Overview {
  const overview = overviewFixture('7d');
  const [summariser] = overview.services;
  const more = Array.from({ length: 12 }, (_, i) => ({
    ...summariser,
    serviceId: `svc-${i}`,
    name: `ocr-${String(i).padStart(2, '0')}`,
    team: i % 2 ? 'search' : 'ml-platform',
    monthToDateMicros: (i + 1) * 1_000_000,
    idleMicros: (i + 1) * 500_000,
  }));
  return { ...overview, services: [...overview.services, ...more] };
}

function firstCells(): string[] {
  // The body's rows: the pagination is a row of the table's footer.
  return [...document.querySelectorAll<HTMLElement>('tbody tr')].map(
    row => within(row).getAllByRole('cell')[0].textContent ?? '',
  );
}

async function renderLeaderboard(
  Leaderboard: typeof CostLeaderboard | typeof WasteLeaderboard,
  overview: Overview,
  options: { entityRoutes?: boolean } = {},
) {
  const api = new FakeGpuApi();
  api.overview = async () => overview;
  const summary = await api.getOverview('7d');
  api.calls.length = 0;
  await renderWithGpuApis(<Leaderboard overview={summary} usageWindow="7d" />, {
    api,
    ...(options.entityRoutes && {
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
    }),
  });
  return api;
}

describe.each([
  ['Cost leaderboard', CostLeaderboard, 'cost', 'Search the cost leaderboard'],
  [
    'Waste leaderboard',
    WasteLeaderboard,
    'waste',
    'Search the waste leaderboard',
  ],
] as const)('%s', (_title, Leaderboard, leaderboard, searchLabel) => {
  it('shows the first page the overview carries without a request, and pages on the server', async () => {
    const api = await renderLeaderboard(Leaderboard, manyServices());
    await waitFor(() => expect(firstCells()).toHaveLength(10));
    expect(screen.getAllByText('1-10 of 14').length).toBeGreaterThan(0);
    // The overview's first page, in the backend's order (most first).
    const summary = await api.getOverview('7d');
    expect(firstCells()).toEqual(
      summary.leaderboards[leaderboard].items.map(
        s => `${s.name} (${s.namespace})`,
      ),
    );
    expect(firstCells()).toContain('ocr-11 (ml-serving)');
    expect(firstCells()).not.toContain('ocr-00 (ml-serving)');
    api.calls.length = 0;
    expect(api.callsOf('listOverviewServices')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Next Page' }));
    await waitFor(() => expect(firstCells()).toHaveLength(4));
    expect(api.callsOf('listOverviewServices')).toEqual([
      ['7d', { leaderboard, limit: 10, cursor: '10' }],
    ]);
  });

  it('searches on the server', async () => {
    const api = await renderLeaderboard(Leaderboard, manyServices());
    await waitFor(() => expect(firstCells()).toHaveLength(10));
    // Pasted: one input event, where typing re-renders the table for each letter.
    await user.click(screen.getByRole('textbox', { name: searchLabel }));
    await user.paste('search');
    await waitFor(() => expect(firstCells()).toHaveLength(7));
    expect(
      firstCells().every(c => c.includes('ocr-') || c.includes('notebook')),
    ).toBe(true);
    expect(api.callsOf('listOverviewServices').at(-1)).toEqual([
      '7d',
      { leaderboard, limit: 10, search: 'search' },
    ]);

    await user.clear(screen.getByRole('textbox', { name: searchLabel }));
    await waitFor(() => expect(firstCells()).toHaveLength(10));
  });

  it('sorts on the server', async () => {
    const api = await renderLeaderboard(Leaderboard, manyServices());
    await waitFor(() => expect(firstCells()).toHaveLength(10));
    await user.click(screen.getByRole('button', { name: 'Service' }));
    await waitFor(() => expect(firstCells()[0]).toBe('notebook (search)'));
    expect(firstCells()[1]).toBe('ocr-00 (ml-serving)');
    expect(api.callsOf('listOverviewServices').at(-1)).toEqual([
      '7d',
      { leaderboard, limit: 10, orderBy: 'name', order: 'asc' },
    ]);
  });

  it('links each service to its catalog entity, and names one without an entity', async () => {
    const overview = overviewFixture('7d');
    const services = overview.services.map(s =>
      s.name === 'summariser'
        ? { ...s, entityRef: 'component:default/summariser' }
        : s,
    );
    await renderLeaderboard(
      Leaderboard,
      { ...overview, services },
      { entityRoutes: true },
    );
    const link = await screen.findByRole('link', {
      name: 'summariser (ml-serving)',
    });
    expect(link).toHaveAttribute(
      'href',
      '/catalog/default/component/summariser',
    );
    // The notebook has no catalog entity: its name, unlinked.
    expect(screen.getByText('notebook (search)').closest('a')).toBeNull();
    expect(screen.getAllByRole('link')).toHaveLength(1);
  });
});

describe('Cost leaderboard', () => {
  it('prices tokens as the card does: the whole cost per 1M output tokens, none for a dry run', async () => {
    const overview = overviewFixture('7d');
    const services = overview.services.map(s =>
      s.name === 'summariser'
        ? {
            ...s,
            accrualBasis: 'reservation' as const,
            costPerThousandTokensMicros: 69,
          }
        : {
            ...s,
            accrualBasis: 'dry-run' as const,
            costPerThousandTokensMicros: 0,
          },
    );
    await renderLeaderboard(CostLeaderboard, { ...overview, services });
    const row = await screen.findByRole('row', { name: /^summariser/ });
    expect(
      screen.getByRole('columnheader', {
        name: 'Whole cost per 1M output tokens',
      }),
    ).toBeInTheDocument();
    // $0.000069 per 1,000 is $0.069 per 1M.
    expect(within(row).getByText('$0.069')).toBeInTheDocument();
    // A dry run spent nothing: no price per token, not '< $0.001'.
    const notebook = screen.getByRole('row', { name: /^notebook/ });
    expect(within(notebook).getByText('nothing spent')).toBeInTheDocument();
  });
});

describe('Waste leaderboard', () => {
  it("shows a recommendation's whole reason in place, from the keyboard, without a dialog", async () => {
    await renderLeaderboard(WasteLeaderboard, overviewFixture('7d'));
    const row = await screen.findByRole('row', { name: /^notebook/ });
    expect(within(row).getByText('Scale to zero when idle')).toBeVisible();
    const reason =
      'No requests for most of the window: KEDA with minReplicas 0 would stop paying for it.';
    const toggle = within(row).getByRole('button', {
      name: 'Full reason for notebook (search)',
    });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(within(row).getByText(reason)).not.toBeVisible();

    // A button in the tab order, opened with Enter: the sentence, whole, in the row.
    expect(toggle.tagName).toBe('BUTTON');
    expect(toggle.tabIndex).toBe(0);
    toggle.focus();
    await user.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const details = document.getElementById(
      toggle.getAttribute('aria-controls')!,
    )!;
    expect(details).toBeVisible();
    expect(details).toHaveTextContent(reason);
    expect(details).toHaveStyle({ whiteSpace: 'normal' });
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.keyboard(' ');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(details).not.toBeVisible();
  });
});
