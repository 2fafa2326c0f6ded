import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  Overview,
  Recommendation,
  ServiceCostSummary,
} from '@internal/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import { formatPercent } from '../common';
import { LEADERBOARD_SIZE } from './CostLeaderboard';

interface WasteRow extends ServiceCostSummary {
  recommendation?: Recommendation;
}

/**
 * The services paying most for idle GPU (allocation - usage over the window), with the recommendation that would
 * save most. Needs usage metrics: without them it says so.
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
    .slice(0, LEADERBOARD_SIZE)
    .map(s => ({ ...s, recommendation: best.get(s.serviceId) }));
  const columns: TableColumn<WasteRow>[] = [
    { title: 'Service', render: row => `${row.name} (${row.namespace})` },
    { title: 'Team', field: 'team' },
    {
      title: `Idle cost, ${overview.window.label}`,
      render: row =>
        `${formatUsd(row.idleMicros!)} of ${formatUsd(row.allocationMicros)}${
          row.allocationMicros > 0
            ? ` (${formatPercent(row.idleMicros! / row.allocationMicros)})`
            : ''
        }`,
    },
    {
      title: 'Utilisation',
      render: row =>
        row.utilisation ? formatPercent(row.utilisation.value) : '-',
    },
    {
      title: 'Peak memory',
      render: row =>
        row.peakMemoryFraction !== undefined
          ? formatPercent(row.peakMemoryFraction)
          : '-',
    },
    {
      title: 'Recommendation',
      render: row =>
        row.recommendation ? (
          <>
            <Typography variant="body2">{row.recommendation.title}</Typography>
            <Typography variant="caption" color="textSecondary">
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
      subtitle={`Top ${LEADERBOARD_SIZE} by idle allocation (allocation x (1 - utilisation))`}
      options={{ paging: false, search: false, padding: 'dense' }}
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
