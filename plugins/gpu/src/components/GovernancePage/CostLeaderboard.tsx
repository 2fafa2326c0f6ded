import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  OverviewServiceRow,
  OverviewSummary,
  ServiceCostSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { formatPercent } from '../common';
import {
  perMillionFromPerThousand,
  wholeCostLabel,
} from '../GpuServiceCard/describeTokenFigures';
import { LeaderboardService } from './LeaderboardService';
import { leaderboardOptions } from './leaderboardOptions';
import { useLeaderboardPages } from './useLeaderboardPages';

interface CostRow extends OverviewServiceRow {
  /** `summariser (ml-serving)`, as shown. */
  label: string;
  placementLabel: string;
}

export function placementLabel(row: ServiceCostSummary): string {
  return `${row.tier}${row.migProfile ? ` ${row.migProfile}` : ''} on ${
    row.pool
  }`;
}

function toRow(s: OverviewServiceRow): CostRow {
  return {
    ...s,
    label: `${s.name} (${s.namespace})`,
    placementLabel: placementLabel(s),
  };
}

/**
 * Every service by cost this month (most first), with its whole cost per 1M output tokens and how busy it is; paged,
 * searched and sorted by the backend (a sortable column's `field` is the `orderBy` it asks for).
 */
export function CostLeaderboard(props: {
  overview: OverviewSummary;
  usageWindow: string;
  cluster?: string;
}) {
  const { tableRef, fetchPage } = useLeaderboardPages({
    ...props,
    leaderboard: 'cost',
    toRow,
  });
  const columns: TableColumn<CostRow>[] = [
    {
      title: 'Service',
      field: 'name',
      render: row => <LeaderboardService row={row} label={row.label} />,
    },
    { title: 'Team', field: 'team', sorting: false },
    { title: 'Placement', field: 'placementLabel', sorting: false },
    {
      title: 'Month-to-date',
      field: 'monthToDate',
      render: row => formatUsd(row.monthToDateMicros),
    },
    {
      title: 'Projected',
      field: 'projectedMonth',
      render: row => formatUsd(row.projectedMonthMicros),
    },
    {
      // The card's unit and words: every token price per 1M, this one all of the cost on output tokens.
      title: wholeCostLabel(),
      field: 'costPerThousandTokens',
      render: row => {
        if (row.costPerThousandTokensMicros === undefined) return '-';
        // A dry run spends nothing: its tokens have no cost to divide (not a price below a tenth of a cent).
        if (row.accrualBasis === 'dry-run') return 'nothing spent';
        return perMillionFromPerThousand(row.costPerThousandTokensMicros);
      },
    },
    {
      title: 'Utilisation',
      field: 'utilisation',
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
  ];
  return (
    <Table<CostRow>
      tableRef={tableRef}
      title="Cost leaderboard"
      subtitle="Every service, most month-to-date allocation cost first"
      options={leaderboardOptions}
      localization={{
        toolbar: {
          searchPlaceholder: 'Search service, team or placement',
          searchTooltip: 'Search service, team or placement',
          searchAriaLabel: 'Search the cost leaderboard',
        },
        body: { emptyDataSourceMessage: 'No service to rank.' },
      }}
      columns={columns}
      data={fetchPage}
    />
  );
}
