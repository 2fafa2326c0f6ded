import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  Overview,
  ServiceCostSummary,
} from '@internal/backstage-plugin-gpu-common';
import { formatPercent } from '../common';

/** How many services each leaderboard lists. */
export const LEADERBOARD_SIZE = 10;

function placement(row: ServiceCostSummary): string {
  return `${row.tier}${row.migProfile ? ` ${row.migProfile}` : ''} on ${
    row.pool
  }`;
}

/** The services costing most this month, with what they cost per 1,000 tokens and how busy they are. */
export function CostLeaderboard(props: { overview: Overview }) {
  const rows = [...props.overview.services]
    .sort(
      (a, b) =>
        b.monthToDateMicros - a.monthToDateMicros ||
        a.name.localeCompare(b.name),
    )
    .slice(0, LEADERBOARD_SIZE);
  const columns: TableColumn<ServiceCostSummary>[] = [
    { title: 'Service', render: row => `${row.name} (${row.namespace})` },
    { title: 'Team', field: 'team' },
    { title: 'Placement', render: placement },
    { title: 'Month-to-date', render: row => formatUsd(row.monthToDateMicros) },
    { title: 'Projected', render: row => formatUsd(row.projectedMonthMicros) },
    {
      title: 'Per 1,000 tokens',
      render: row =>
        row.costPerThousandTokensMicros !== undefined
          ? formatUsd(row.costPerThousandTokensMicros, { decimals: 6 })
          : '-',
    },
    {
      title: 'Utilisation',
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
  ];
  return (
    <Table<ServiceCostSummary>
      title="Cost leaderboard"
      subtitle={`Top ${LEADERBOARD_SIZE} by month-to-date allocation cost`}
      options={{ paging: false, search: false, padding: 'dense' }}
      columns={columns}
      data={rows}
    />
  );
}
