import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  Overview,
  ServiceCostSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatPercent } from '../common';
import { LeaderboardService } from './LeaderboardService';
import { byNumber, leaderboardOptions } from './leaderboardOptions';

interface CostRow extends ServiceCostSummary {
  /** `summariser (ml-serving)`, searched and sorted as shown. */
  label: string;
  placementLabel: string;
}

export function placementLabel(row: ServiceCostSummary): string {
  return `${row.tier}${row.migProfile ? ` ${row.migProfile}` : ''} on ${
    row.pool
  }`;
}

/**
 * Every service by cost this month (most first), with what it costs per 1,000 tokens and how busy it is; paged,
 * searchable and sortable by any column.
 */
export function CostLeaderboard(props: { overview: Overview }) {
  const rows: CostRow[] = [...props.overview.services]
    .sort(
      (a, b) =>
        b.monthToDateMicros - a.monthToDateMicros ||
        a.name.localeCompare(b.name),
    )
    .map(s => ({
      ...s,
      label: `${s.name} (${s.namespace})`,
      placementLabel: placementLabel(s),
    }));
  const columns: TableColumn<CostRow>[] = [
    {
      title: 'Service',
      field: 'label',
      render: row => <LeaderboardService row={row} label={row.label} />,
    },
    { title: 'Team', field: 'team' },
    { title: 'Placement', field: 'placementLabel' },
    {
      title: 'Month-to-date',
      field: 'monthToDateMicros',
      searchable: false,
      customSort: byNumber(r => r.monthToDateMicros),
      render: row => formatUsd(row.monthToDateMicros),
    },
    {
      title: 'Projected',
      field: 'projectedMonthMicros',
      searchable: false,
      customSort: byNumber(r => r.projectedMonthMicros),
      render: row => formatUsd(row.projectedMonthMicros),
    },
    {
      title: 'Per 1,000 tokens',
      field: 'costPerThousandTokensMicros',
      searchable: false,
      customSort: byNumber(r => r.costPerThousandTokensMicros),
      render: row =>
        row.costPerThousandTokensMicros !== undefined
          ? formatUsd(row.costPerThousandTokensMicros, { decimals: 6 })
          : '-',
    },
    {
      title: 'Utilisation',
      searchable: false,
      customSort: byNumber(r => r.utilisation?.value),
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
  ];
  return (
    <Table<CostRow>
      title="Cost leaderboard"
      subtitle="Every service, most month-to-date allocation cost first"
      options={leaderboardOptions}
      localization={{
        toolbar: {
          searchPlaceholder: 'Search service, team or placement',
          searchTooltip: 'Search service, team or placement',
          searchAriaLabel: 'Search the cost leaderboard',
        },
      }}
      columns={columns}
      data={rows}
    />
  );
}
