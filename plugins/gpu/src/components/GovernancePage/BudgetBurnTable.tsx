import { Table, TableColumn } from '@backstage/core-components';
import {
  formatUsd,
  OverviewSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';
import { formatPercent, useErrorColorStyles, UsageBar } from '../common';

type TeamRow = OverviewSummary['teams'][number];

/**
 * Per team: month-to-date and projected allocation cost against the monthly budget (its batch jobs' part said under
 * it). A burn ahead of the month's elapsed share is over pace.
 */
export function BudgetBurnTable(props: {
  overview: OverviewSummary;
  elapsed: number;
}) {
  const { overview, elapsed } = props;
  const errorColor = useErrorColorStyles();
  const columns: TableColumn<TeamRow>[] = [
    { title: 'Team', field: 'team' },
    {
      title: `Month-to-date (${overview.month}) / budget`,
      // Columns drawn by render sort by the figure they show (material-table has no field to sort them by).
      customSort: (a, b) => a.monthToDateMicros - b.monthToDateMicros,
      render: row => (
        <>
          <UsageBar
            used={row.monthToDateMicros}
            total={row.monthlyBudgetMicros}
            warnAt={Math.max(elapsed, 0.01)}
            label={`${formatUsd(row.monthToDateMicros)} of ${formatUsd(
              row.monthlyBudgetMicros,
            )}${
              row.budgetBurn !== undefined
                ? ` (${formatPercent(row.budgetBurn)})`
                : ''
            }`}
          />
          {row.batchJobs && (
            <Typography variant="caption" color="textSecondary">
              including {formatUsd(row.batchJobs.monthToDateMicros)} for{' '}
              {row.batchJobs.count} batch job
              {row.batchJobs.count === 1 ? '' : 's'}
            </Typography>
          )}
        </>
      ),
    },
    {
      title: 'Projected month',
      customSort: (a, b) => a.projectedMonthMicros - b.projectedMonthMicros,
      render: row => (
        <>
          <Typography variant="body2">
            {formatUsd(row.projectedMonthMicros)}
          </Typography>
          {row.projectedBudgetBurn !== undefined && (
            <Typography
              variant="caption"
              {...(row.projectedBudgetBurn > 1
                ? { className: errorColor.error }
                : { color: 'textSecondary' })}
            >
              {formatPercent(row.projectedBudgetBurn)} of budget
              {row.projectedBudgetBurn > 1 ? ': over budget' : ''}
            </Typography>
          )}
        </>
      ),
    },
    {
      title: `Idle, ${overview.window.label}`,
      // Teams without usage metrics sort below every measured figure.
      customSort: (a, b) => (a.idleMicros ?? -1) - (b.idleMicros ?? -1),
      render: row =>
        row.idleMicros !== undefined
          ? `${formatUsd(row.idleMicros)} of ${formatUsd(row.allocationMicros)}`
          : 'needs usage metrics',
    },
  ];
  return (
    <Table<TeamRow>
      title="Budget burn"
      subtitle={`${formatPercent(elapsed)} of ${
        overview.month
      } elapsed: a burn above it is ahead of pace.`}
      options={{
        paging: false,
        search: false,
        draggable: false,
        padding: 'dense',
      }}
      columns={columns}
      data={overview.teams}
    />
  );
}
