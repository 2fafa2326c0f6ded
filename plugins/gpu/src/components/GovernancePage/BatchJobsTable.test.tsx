import { renderInTestApp } from '@backstage/frontend-test-utils';
import {
  BatchJobCostSummary,
  BatchJobCostTotals,
  formatUsd,
  Overview,
  OverviewSummary,
  overviewTotals,
  TeamCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { overviewFixture } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { BatchJobsTable } from './BatchJobsTable';
import { BudgetBurnTable } from './BudgetBurnTable';
import { CostOverviewSection } from './CostOverviewSection';

jest.setTimeout(60_000);
configure({ asyncUtilTimeout: 10_000 });
const user = userEvent.setup({ delay: null });

const job = (
  name: string,
  fields: Partial<BatchJobCostSummary>,
): BatchJobCostSummary => ({
  batchId: `id-${name}`,
  name,
  team: 'search',
  namespace: 'search',
  environment: 'dev',
  pool: 'spot-l4',
  state: 'finished',
  outcome: 'completed',
  gpus: 1,
  gpuEquivalents: 0,
  gpuHours: 1,
  allocationMicros: 370_000,
  monthToDateMicros: 370_000,
  projectedMonthMicros: 370_000,
  ...fields,
});

/** search's batch jobs, one in each state a person sees. */
const SEARCH_JOBS = [
  job('ocr-backlog', {
    state: 'active',
    outcome: 'running',
    gpus: 2,
    gpuEquivalents: 2,
    gpuHours: 27,
    allocationMicros: 9_990_000,
    monthToDateMicros: 9_990_000,
    projectedMonthMicros: 198_320_000,
    heldAt: '2026-11-19T20:00:00.000Z',
  }),
  job('ocr-nightly', {
    gpus: 2,
    gpuHours: 13,
    allocationMicros: 4_810_000,
    monthToDateMicros: 4_810_000,
    projectedMonthMicros: 4_810_000,
    finishReason: 'the Job completed',
    heldAt: '2026-11-14T01:00:00.000Z',
    releasedAt: '2026-11-14T07:30:00.000Z',
  }),
  job('ocr-retry', {
    outcome: 'failed',
    pool: 'l4-ondemand',
    gpuHours: 4,
    allocationMicros: 2_960_000,
    monthToDateMicros: 2_960_000,
    projectedMonthMicros: 2_960_000,
    finishReason: 'the Job failed',
  }),
  job('ocr-lost', {
    outcome: 'released',
    finishReason: 'the Job is gone from its cluster',
  }),
];

const totalsOf = (jobs: BatchJobCostSummary[]): BatchJobCostTotals => ({
  count: jobs.length,
  gpuHours: jobs.reduce((t, j) => t + j.gpuHours, 0),
  allocationMicros: jobs.reduce((t, j) => t + j.allocationMicros, 0),
  monthToDateMicros: jobs.reduce((t, j) => t + j.monthToDateMicros, 0),
  projectedMonthMicros: jobs.reduce((t, j) => t + j.projectedMonthMicros, 0),
});

/** The overview fixture with batch jobs counted for `teams`. */
function overviewWithJobs(
  label: string,
  teams: Record<string, BatchJobCostSummary[]>,
): Overview {
  const overview = overviewFixture(label);
  return {
    ...overview,
    teams: overview.teams.map(t =>
      teams[t.team] ? { ...t, batchJobs: totalsOf(teams[t.team]) } : t,
    ),
  };
}

/** What `GET /overview` answers for {@link overviewWithJobs}. */
function summaryWithJobs(
  teams: Record<string, BatchJobCostSummary[]>,
): OverviewSummary {
  return {
    ...overviewTotals(overviewWithJobs('7d', teams)),
    leaderboards: {
      cost: { items: [], totalCount: 0 },
      waste: { items: [], totalCount: 0 },
    },
  };
}

function teamCost(team: string, batchJobs: BatchJobCostSummary[]): TeamCost {
  const overview = overviewFixture('7d');
  return {
    team,
    window: overview.window,
    metrics: { state: 'available' },
    month: overview.month,
    allocationMicros: 0,
    monthlyBudgetMicros: 0,
    monthToDateMicros: 0,
    projectedMonthMicros: 0,
    monthElapsed: 0.5,
    spotSavingMicros: 0,
    services: [],
    ...(batchJobs.length > 0 && { batchJobs }),
    recommendations: [],
  };
}

/** The batch jobs table's rows: each cell's text. */
function rows(): string[][] {
  const table = screen
    .getByText(/^Batch jobs of /)
    .closest('.MuiPaper-root') as HTMLElement;
  return [...table.querySelectorAll<HTMLElement>('tbody tr')].map(row =>
    within(row)
      .getAllByRole('cell')
      .map(cell => cell.textContent ?? ''),
  );
}

describe('BatchJobsTable', () => {
  it("lists a team's batch jobs with their pool, GPUs, state and cost, and another team's once chosen", async () => {
    const api = new FakeGpuApi();
    const mlJobs = [
      job('eval-sweep', {
        team: 'ml-platform',
        namespace: 'ml-serving',
        gpuHours: 6,
        allocationMicros: 2_220_000,
        monthToDateMicros: 2_220_000,
        projectedMonthMicros: 2_220_000,
      }),
    ];
    api.teamCost = async team =>
      teamCost(team, team === 'search' ? SEARCH_JOBS : mlJobs);
    await renderWithGpuApis(
      <BatchJobsTable
        overview={summaryWithJobs({
          'ml-platform': mlJobs,
          search: SEARCH_JOBS,
        })}
        usageWindow="7d"
      />,
      { api },
    );

    // The first team with batch jobs is shown first.
    expect(await screen.findByText('Batch jobs of ml-platform')).toBeVisible();
    expect(rows()).toEqual([
      [
        'eval-sweep (ml-serving)',
        'spot-l4',
        '1',
        'Completed',
        '6',
        '$2.22',
        '$2.22',
        '$2.22',
      ],
    ]);

    await user.click(screen.getByRole('button', { name: /^Team ml-platform/ }));
    await user.click(screen.getByRole('option', { name: 'search' }));
    expect(await screen.findByText('Batch jobs of search')).toBeVisible();
    expect(api.callsOf('getTeamCost')).toEqual([
      ['ml-platform', '7d'],
      ['search', '7d'],
    ]);
    expect(rows()).toEqual([
      [
        'ocr-backlog (search)',
        'spot-l4',
        '2',
        'Runningfrom 2026-11-19 20:00 UTC',
        '27',
        formatUsd(9_990_000),
        formatUsd(9_990_000),
        formatUsd(198_320_000),
      ],
      [
        'ocr-nightly (search)',
        'spot-l4',
        '2',
        'Completedfrom 2026-11-14 01:00 UTC to 2026-11-14 07:30 UTC: the Job completed',
        '13',
        '$4.81',
        '$4.81',
        '$4.81',
      ],
      [
        'ocr-retry (search)',
        'l4-ondemand',
        '1',
        'Failed: the Job failed',
        '4',
        '$2.96',
        '$2.96',
        '$2.96',
      ],
      [
        'ocr-lost (search)',
        'spot-l4',
        '1',
        'Released: the Job is gone from its cluster',
        '1',
        '$0.37',
        '$0.37',
        '$0.37',
      ],
    ]);
  });

  it("says in budget burn the batch jobs' part of each team's month to date", async () => {
    await renderInTestApp(
      <BudgetBurnTable
        overview={summaryWithJobs({
          'ml-platform': [SEARCH_JOBS[2]],
          search: SEARCH_JOBS,
        })}
        elapsed={0.5}
      />,
    );
    expect(
      await screen.findByText(
        `including ${formatUsd(
          totalsOf(SEARCH_JOBS).monthToDateMicros,
        )} for 4 batch jobs`,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('including $2.96 for 1 batch job')).toBeVisible();
  });

  it('says when no team has batch jobs, without asking for any team’s cost', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderWithGpuApis(<CostOverviewSection />, { api });
    expect(await screen.findByTestId('batch-jobs-empty')).toHaveTextContent(
      'No batch job held GPUs in the last 7d or in 2026-11.',
    );
    expect(screen.queryByRole('button', { name: /^Team / })).toBeNull();
    expect(api.callsOf('getTeamCost')).toEqual([]);
    expect(screen.queryByText(/batch jobs?$/)).toBeNull();
  });

  it('says when the team has none left in its cost', async () => {
    const api = new FakeGpuApi();
    api.teamCost = async team => teamCost(team, []);
    await renderWithGpuApis(
      <BatchJobsTable
        overview={summaryWithJobs({ search: SEARCH_JOBS })}
        usageWindow="7d"
      />,
      { api },
    );
    expect(await screen.findByTestId('batch-jobs-empty')).toHaveTextContent(
      'Team search has no batch job that held GPUs in the last 7d or in 2026-11.',
    );
  });

  it('says why a team’s batch jobs could not be read, the rest of the section still shown', async () => {
    const api = new FakeGpuApi();
    api.overview = async label =>
      overviewWithJobs(label, { search: SEARCH_JOBS });
    api.teamCost = async () => {
      throw new Error('the gpu backend answered 503');
    };
    await renderWithGpuApis(<CostOverviewSection />, { api });
    expect(
      await screen.findByText(/Could not load the batch jobs of team search/),
    ).toBeInTheDocument();
    await waitFor(() =>
      expect(
        screen.getAllByText(/the gpu backend answered 503/).length,
      ).toBeGreaterThan(0),
    );
    expect(screen.getByText('Budget burn')).toBeInTheDocument();
  });
});
