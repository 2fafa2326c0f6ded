import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { overviewFixture } from '../../__testUtils__/gpuFixtures';
import { CostOverviewSection } from './CostOverviewSection';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

async function renderSection(api: FakeGpuApi, allow = true) {
  await renderWithGpuApis(<CostOverviewSection />, { api, allow });
}

/** Rows of a table by its title, first cell text of each. */
function firstCells(title: string): string[] {
  const table = screen
    .getByText(title)
    .closest('.MuiPaper-root') as HTMLElement;
  // The body's rows: the pagination is a row of the table's footer.
  return [...table.querySelectorAll<HTMLElement>('tbody tr')].map(
    row => within(row).getAllByRole('cell')[0].textContent ?? '',
  );
}

describe('CostOverviewSection', () => {
  it('labels simulated metrics as demo data, not measured, and only then', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => ({
      ...overviewFixture(label),
      metrics: { state: 'available', simulated: true },
    });
    await renderSection(api);
    expect(
      await screen.findByText('Simulated metrics — demo data, not measured'),
    ).toBeInTheDocument();
    expect(firstCells('Waste leaderboard').length).toBeGreaterThan(0);

    const measured = new FakeGpuApi();
    measured.overview = async label => overviewFixture(label);
    await renderSection(measured);
    await screen.findAllByText('Waste leaderboard');
    expect(screen.getAllByTestId('simulated-metrics')).toHaveLength(1);
  });

  it('shows budget burn per team and the cost and waste leaderboards', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderSection(api);
    const overview = overviewFixture('7d');

    expect(await screen.findByText('Budget burn')).toBeInTheDocument();
    const [ml, search] = overview.teams;
    expect(
      screen.getByText(
        `${formatUsd(ml.monthToDateMicros)} of $60,000.00 (0.5%)`,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        `${formatUsd(search.monthToDateMicros)} of $4,000.00 (1%)`,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText(/48% of 2026-11 elapsed/)).toBeInTheDocument();
    expect(screen.getByTestId('overview-totals')).toHaveTextContent(
      `2 service(s): ${formatUsd(
        overview.monthToDateMicros,
      )} month-to-date, projected ${formatUsd(
        overview.projectedMonthMicros,
      )}, spot saving $0.00 (from 14 PromQL queries).`,
    );

    expect(firstCells('Cost leaderboard')).toEqual([
      'summariser (ml-serving)',
      'notebook (search)',
    ]);
    expect(firstCells('Waste leaderboard')).toEqual([
      'summariser (ml-serving)',
      'notebook (search)',
    ]);
    const notebook = overview.services[1];
    expect(
      screen.getByText(
        `${formatUsd(notebook.idleMicros!)} of ${formatUsd(
          notebook.allocationMicros,
        )} (95%)`,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Scale to zero when idle')).toBeInTheDocument();
    expect(screen.getByText('saves $96.00 per month')).toBeInTheDocument();
    expect(api.callsOf('getOverview')).toEqual([['7d']]);
  });

  it('says costs are allocations only without a metrics source, and has no waste to rank', async () => {
    const api = new FakeGpuApi();
    api.overview = async label =>
      overviewFixture(label, { state: 'not-configured' });
    await renderSection(api);
    expect(
      await screen.findByText(/No metrics source is configured/),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        'No idle cost to rank: it needs usage metrics from Prometheus.',
      ),
    ).toBeInTheDocument();
    expect(screen.getAllByText('needs usage metrics')).toHaveLength(2);
    expect(firstCells('Cost leaderboard')).toHaveLength(2);
  });

  it('says what was reserved while nothing ran, apart from spend', async () => {
    const api = new FakeGpuApi();
    // What the backend says was held while nothing ran; month-to-date (spend) stays as it was.
    api.overview = async label => ({
      ...overviewFixture(label),
      reservedMicros: 1_234_567,
    });
    await renderSection(api);
    expect(await screen.findByTestId('overview-totals')).toHaveTextContent(
      ', $1.23 reserved in 7d while nothing ran (dry runs, workloads not running: not spend)',
    );
  });

  it('shows the error when the overview cannot be read', async () => {
    const api = new FakeGpuApi();
    api.overview = () => Promise.reject(new Error('overview timed out'));
    await renderSection(api);
    expect(
      (await screen.findAllByText(/overview timed out/)).length,
    ).toBeGreaterThan(0);
  });

  it('reloads for another window', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderSection(api);
    await screen.findByText('Budget burn');
    const user = userEvent.setup({ delay: null });
    await user.click(screen.getByRole('button', { name: /^Window/ }));
    await user.click(
      within(await screen.findByRole('listbox')).getByText('Last 30 days'),
    );
    await waitFor(() =>
      expect(api.callsOf('getOverview')).toEqual([['7d'], ['30d']]),
    );
    expect(await screen.findByText(/Idle, 30d/)).toBeInTheDocument();
  });

  it("tells a caller without the permission that the costs of every team are the platform team's, without asking the backend", async () => {
    const api = new FakeGpuApi();
    await renderSection(api, false);
    expect(
      await screen.findByText(
        "The cost and waste of every team are the platform team's (permission gpu.quota.read).",
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Could not load/)).not.toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: /^Window/ }),
    ).not.toBeInTheDocument();
    expect(api.callsOf('getOverview')).toEqual([]);
  });
  it('names the services left out of usage and idle, and prices busy time above the shares held, beside the totals', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => ({
      ...overviewFixture(label),
      withoutUsage: [{ serviceId: 'svc-old', name: 'old-notebook' }],
      aboveShareMicros: 1_250_000,
    });
    await renderSection(api);

    expect(
      await screen.findByTestId('overview-without-usage'),
    ).toHaveTextContent(
      'Usage and idle leave out 1 service(s) whose utilisation is unknown in the window (7d; their allocation is in the totals): old-notebook.',
    );
    expect(screen.getByTestId('overview-above-share')).toHaveTextContent(
      '$1.25 of busy time on shared GPUs was above the shares the services hold in the window (7d)',
    );
  });

  it('names the first 20 services left out of usage by name and counts the rest', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => ({
      ...overviewFixture(label),
      withoutUsage: Array.from({ length: 23 }, (_, i) => ({
        serviceId: `svc-${i}`,
        name: `old-${String(i).padStart(2, '0')}`,
      })).reverse(),
    });
    await renderSection(api);

    const note = await screen.findByTestId('overview-without-usage');
    expect(note).toHaveTextContent(
      'Usage and idle leave out 23 service(s) whose utilisation is unknown',
    );
    expect(note).toHaveTextContent(/: old-00, old-01, .*old-19 and 3 more\.$/);
    expect(note).not.toHaveTextContent('old-20');
  });

  it('says nothing of either when every service has usage and no pod was above its share', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderSection(api);

    expect(await screen.findByTestId('overview-totals')).toBeInTheDocument();
    expect(screen.queryByTestId('overview-without-usage')).toBeNull();
    expect(screen.queryByTestId('overview-above-share')).toBeNull();
  });
});
