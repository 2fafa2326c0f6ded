import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  Overview,
  Recommendation,
  ServiceCostSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import { formatPercent } from '../common';
import { LeaderboardService } from './LeaderboardService';
import { byNumber, leaderboardOptions } from './leaderboardOptions';

interface WasteRow extends ServiceCostSummary {
  label: string;
  recommendation?: Recommendation;
  recommendationTitle: string;
}

/**
 * The services paying for idle GPU (allocation - usage over the window), most first, with the recommendation that
 * would save most; paged, searchable and sortable by any column. Needs usage metrics: without them it says so.
 */
export function WasteLeaderboard(props: { overview: Overview }) {
  const { overview } = props;
  const best = new Map<string, Recommendation>();
  for (const r of overview.recommendations) {
    const current = best.get(r.serviceId);
    if (!current || r.monthlySavingMicros > current.monthlySavingMicros) {
      best.set(r.serviceId, r);
    }
  }
  const rows: WasteRow[] = overview.services
    .filter(s => s.idleMicros !== undefined)
    .sort(
      (a, b) => b.idleMicros! - a.idleMicros! || a.name.localeCompare(b.name),
    )
    .map(s => ({
      ...s,
      label: `${s.name} (${s.namespace})`,
      recommendation: best.get(s.serviceId),
      recommendationTitle: best.get(s.serviceId)?.title ?? '',
    }));
  const columns: TableColumn<WasteRow>[] = [
    {
      title: 'Service',
      field: 'label',
      render: row => <LeaderboardService row={row} label={row.label} />,
    },
    { title: 'Team', field: 'team' },
    {
      title: `Idle cost, ${overview.window.label}`,
      field: 'idleMicros',
      searchable: false,
      customSort: byNumber(r => r.idleMicros),
      render: row =>
        `${formatUsd(row.idleMicros!)} of ${formatUsd(row.allocationMicros)}${
          row.allocationMicros > 0
            ? ` (${formatPercent(row.idleMicros! / row.allocationMicros)})`
            : ''
        }`,
    },
    {
      title: 'Utilisation',
      searchable: false,
      customSort: byNumber(r => r.utilisation?.value),
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
    {
      title: 'Peak memory',
      searchable: false,
      customSort: byNumber(r => r.peakMemoryFraction),
      render: row =>
        row.peakMemoryFraction !== undefined
          ? formatPercent(row.peakMemoryFraction)
          : '-',
    },
    {
      title: 'Recommendation',
      field: 'recommendationTitle',
      customSort: byNumber(r => r.recommendation?.monthlySavingMicros),
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
          </>
        ) : (
          '-'
        ),
    },
  ];
  return (
    <Table<WasteRow>
      title="Waste leaderboard"
      subtitle="Most idle allocation first (allocation x (1 - utilisation))"
      options={leaderboardOptions}
      localization={{
        toolbar: {
          searchPlaceholder: 'Search service, team or recommendation',
          searchTooltip: 'Search service, team or recommendation',
          searchAriaLabel: 'Search the waste leaderboard',
        },
      }}
      columns={columns}
      data={rows}
      emptyContent={
        <Typography variant="body2" style={{ padding: 16 }}>
          No idle cost to rank: it needs usage metrics from Prometheus.
        </Typography>
      }
    />
  );
}
