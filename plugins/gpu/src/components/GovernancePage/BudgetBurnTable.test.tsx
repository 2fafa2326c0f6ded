import { renderInTestApp } from '@backstage/frontend-test-utils';
import {
  OverviewSummary,
  overviewTotals,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { overviewFixture } from '../../__testUtils__/gpuFixtures';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import { BudgetBurnTable } from './BudgetBurnTable';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });
const user = userEvent.setup({ delay: null });

/** Three teams whose month-to-date, projected and idle figures come in different orders. */
function threeTeams(): OverviewSummary {
  const overview = {
    ...overviewTotals(overviewFixture('7d')),
    leaderboards: {
      cost: { items: [], totalCount: 0 },
      waste: { items: [], totalCount: 0 },
    },
  };
  const [first] = overview.teams;
  const teamOf = (
    team: string,
    monthToDate: number,
    projected: number,
    idle?: number,
  ) => ({
    ...first,
    team,
    monthToDateMicros: monthToDate * 1_000_000,
    projectedMonthMicros: projected * 1_000_000,
    idleMicros: idle === undefined ? undefined : idle * 1_000_000,
  });
  return {
    ...overview,
    teams: [
      teamOf('alpha', 300, 500, 10),
      teamOf('bravo', 100, 900),
      teamOf('charlie', 200, 100, 50),
    ],
  };
}

function teamsInOrder(): string[] {
  return [...document.querySelectorAll<HTMLElement>('tbody tr')].map(
    row => within(row).getAllByRole('cell')[0].textContent ?? '',
  );
}

describe('BudgetBurnTable', () => {
  it('sorts by every column it shows, figures by their value', async () => {
    await renderInTestApp(
      <BudgetBurnTable overview={threeTeams()} elapsed={0.5} />,
    );
    await waitFor(() =>
      expect(teamsInOrder()).toEqual(['alpha', 'bravo', 'charlie']),
    );

    await user.click(screen.getByRole('button', { name: 'Projected month' }));
    await waitFor(() =>
      expect(teamsInOrder()).toEqual(['charlie', 'alpha', 'bravo']),
    );
    await user.click(screen.getByRole('button', { name: 'Projected month' }));
    await waitFor(() =>
      expect(teamsInOrder()).toEqual(['bravo', 'alpha', 'charlie']),
    );

    // A new column keeps the direction material-table gives it; either way the rows follow the figure shown.
    await user.click(screen.getByRole('button', { name: /^Month-to-date \(/ }));
    await waitFor(() =>
      expect(['bravo charlie alpha', 'alpha charlie bravo']).toContain(
        teamsInOrder().join(' '),
      ),
    );

    // A team without usage metrics sorts below every measured idle cost.
    await user.click(screen.getByRole('button', { name: /^Idle, / }));
    await waitFor(() =>
      expect(['bravo alpha charlie', 'charlie alpha bravo']).toContain(
        teamsInOrder().join(' '),
      ),
    );
  });

  it('says a projection over budget in a red readable on white (4.5:1), not the theme error.main (3.7:1)', async () => {
    const overview = threeTeams();
    overview.teams = overview.teams.map(team =>
      team.team === 'bravo' ? { ...team, projectedBudgetBurn: 1.8 } : team,
    );
    await renderInTestApp(
      <BudgetBurnTable overview={overview} elapsed={0.5} />,
    );
    const over = await screen.findByText(/of budget: over budget/);
    expect(over).toHaveTextContent('180% of budget: over budget');
    expect(textContrastOnWhite(over)).toBeGreaterThanOrEqual(4.5);
  });
});
