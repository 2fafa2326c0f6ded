import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  OverviewServiceRow,
  OverviewSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import { formatPercent } from '../common';
import { LeaderboardService } from './LeaderboardService';
import { ReasonDetails } from './ReasonDetails';
import { leaderboardOptions } from './leaderboardOptions';
import { useLeaderboardPages } from './useLeaderboardPages';

interface WasteRow extends OverviewServiceRow {
  label: string;
}

function toRow(s: OverviewServiceRow): WasteRow {
  return { ...s, label: `${s.name} (${s.namespace})` };
}

/**
 * The services paying for idle GPU (allocation - usage over the window), most first, with the recommendation that
 * would save most (its title and saving; "Full reason" shows its whole reason in place); paged, searched and sorted by
 * the backend. Needs usage metrics: without them it says so.
 */
export function WasteLeaderboard(props: {
  overview: OverviewSummary;
  usageWindow: string;
  cluster?: string;
}) {
  const { overview } = props;
  const { tableRef, fetchPage } = useLeaderboardPages({
    ...props,
    leaderboard: 'waste',
    toRow,
  });
  const columns: TableColumn<WasteRow>[] = [
    {
      title: 'Service',
      field: 'name',
      render: row => <LeaderboardService row={row} label={row.label} />,
    },
    { title: 'Team', field: 'team', sorting: false },
    {
      title: `Idle cost, ${overview.window.label}`,
      field: 'idle',
      render: row =>
        `${formatUsd(row.idleMicros!)} of ${formatUsd(row.allocationMicros)}${
          row.allocationMicros > 0
            ? ` (${formatPercent(row.idleMicros! / row.allocationMicros)})`
            : ''
        }`,
    },
    {
      title: 'Utilisation',
      field: 'utilisation',
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
    {
      title: 'Peak memory',
      field: 'peakMemory',
      render: row =>
        row.peakMemoryFraction !== undefined
          ? formatPercent(row.peakMemoryFraction)
          : '-',
    },
    {
      title: 'Recommendation',
      field: 'recommendation',
      sorting: false,
      render: row =>
        row.recommendation ? (
          <>
            <Typography variant="body2">{row.recommendation.title}</Typography>
            <Typography variant="caption">
              {row.recommendation.monthlySavingMicros >= 0
                ? `saves ${formatUsd(
                    row.recommendation.monthlySavingMicros,
                  )} per month`
                : `costs ${formatUsd(
                    -row.recommendation.monthlySavingMicros,
                  )} more per month`}
            </Typography>
            <div>
              <ReasonDetails
                id={`recommendation-${row.serviceId}`}
                label="Full reason"
                subject={row.label}
              >
                <Typography variant="caption">
                  {row.recommendation.message}
                </Typography>
              </ReasonDetails>
            </div>
          </>
        ) : (
          '-'
        ),
    },
  ];
  return (
    <Table<WasteRow>
      tableRef={tableRef}
      title="Waste leaderboard"
      subtitle="Most idle allocation first (allocation x (1 - utilisation))"
      options={leaderboardOptions}
      localization={{
        toolbar: {
          searchPlaceholder: 'Search service, team or placement',
          searchTooltip: 'Search service, team or placement',
          searchAriaLabel: 'Search the waste leaderboard',
        },
        // Remote data: the table shows this, not emptyContent, when a page is empty.
        body: {
          emptyDataSourceMessage:
            'No idle cost to rank: it needs usage metrics from Prometheus.',
        },
      }}
      columns={columns}
      data={fetchPage}
    />
  );
}
