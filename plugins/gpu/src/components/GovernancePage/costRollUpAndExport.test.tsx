import { Entity } from '@backstage/catalog-model';
import { formatUsd } from '@gpu-platform/backstage-plugin-gpu-common';
import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { overviewFixture } from '../../__testUtils__/gpuFixtures';
import { renderWithGpuApis } from '../../__testUtils__/renderWithGpuApis';
import { responseError } from '../../__testUtils__/responseError';
import { CostOverviewSection } from './CostOverviewSection';

jest.setTimeout(30_000);
configure({ asyncUtilTimeout: 10_000 });

const group = (name: string, spec: Record<string, unknown>): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Group',
  metadata: { name, namespace: 'default' },
  spec: { type: 'team', children: [], ...spec },
});

/** engineering > ai > ml-platform (by its spec.parent); search under engineering (by engineering's children). */
const GROUPS = [
  group('engineering', { children: ['ai', 'search'] }),
  group('ai', {}),
  group('ml-platform', { parent: 'ai' }),
  group('search', {}),
];

/** Body rows of the table titled `title`, as the text of their cells. */
function rowsOf(title: string): string[][] {
  const table = screen
    .getByText(title)
    .closest('.MuiPaper-root') as HTMLElement;
  return [...table.querySelectorAll<HTMLElement>('tbody tr')].map(row =>
    within(row)
      .getAllByRole('cell')
      .map(c => c.textContent ?? ''),
  );
}

describe('cost by group and the FOCUS export', () => {
  it("rolls each team's month-to-date cost up the catalog's groups", async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    await renderWithGpuApis(<CostOverviewSection />, {
      api,
      entities: GROUPS,
    });
    await screen.findByText('Cost by group');
    const [ml, search] = overviewFixture('7d').teams;
    expect(rowsOf('Cost by group')).toEqual([
      [
        'engineering',
        '—',
        formatUsd(0),
        formatUsd(ml.monthToDateMicros + search.monthToDateMicros),
      ],
      ['ai', 'engineering', formatUsd(0), formatUsd(ml.monthToDateMicros)],
      [
        'ml-platform',
        'ai',
        formatUsd(ml.monthToDateMicros),
        formatUsd(ml.monthToDateMicros),
      ],
      [
        'search',
        'engineering',
        formatUsd(search.monthToDateMicros),
        formatUsd(search.monthToDateMicros),
      ],
    ]);
  });

  it('downloads the CSV of the days chosen, and says why it could not', async () => {
    const api = new FakeGpuApi();
    api.overview = async label => overviewFixture(label);
    api.costExport = async () => ({
      filename: 'gpu-cost-focus-2026-11-01-to-2026-11-19.csv',
      csv: 'ChargePeriodStart\r\n',
    });
    const created: Blob[] = [];
    const clicked: string[] = [];
    URL.createObjectURL = jest.fn((blob: Blob) => {
      created.push(blob);
      return 'blob:export';
    });
    URL.revokeObjectURL = jest.fn();
    jest
      .spyOn(HTMLAnchorElement.prototype, 'click')
      .mockImplementation(function click(this: HTMLAnchorElement) {
        clicked.push(this.download);
      });
    await renderWithGpuApis(<CostOverviewSection />, { api });
    await screen.findByText('FinOps export (FOCUS CSV)');

    const first = screen.getByLabelText('First day (UTC)');
    await userEvent.clear(first);
    await userEvent.type(first, '2026-11-01');
    const last = screen.getByLabelText('Last day (UTC)');
    await userEvent.clear(last);
    await userEvent.type(last, '2026-11-19');
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));

    await waitFor(() =>
      expect(clicked).toEqual(['gpu-cost-focus-2026-11-01-to-2026-11-19.csv']),
    );
    expect(api.callsOf('exportCosts')).toEqual([
      [{ firstDay: '2026-11-01', lastDay: '2026-11-19' }],
    ]);
    expect(created[0].type).toBe('text/csv');

    api.costExport = async () => {
      throw await responseError(
        400,
        'Bad Request',
        'InputError',
        "Invalid lastDay '2026-12-31': the export covers whole UTC days that are over",
      );
    };
    await userEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "Could not export: Invalid lastDay '2026-12-31'",
    );
  });
});
