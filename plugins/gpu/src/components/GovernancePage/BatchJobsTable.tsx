import {
  Progress,
  ResponseErrorPanel,
  Table,
  TableColumn,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  BatchJobCostSummary,
  BatchJobOutcome,
  formatUsd,
  OverviewSummary,
  UsageWindowName,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import FormControl from '@material-ui/core/FormControl';
import InputLabel from '@material-ui/core/InputLabel';
import MenuItem from '@material-ui/core/MenuItem';
import Select from '@material-ui/core/Select';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { formatRate, formatTime } from '../common';

/** What became of a batch job, in words. */
export const BATCH_JOB_OUTCOME_WORDS: Record<BatchJobOutcome, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  released: 'Released',
};

/** A GPU-hours figure: `13`, `4.5`, `0.25`. */
function formatGpuHours(value: number): string {
  return value >= 100 ? formatRate(value) : String(Number(value.toFixed(2)));
}

/**
 * A team's batch jobs (`GET /teams/:team/cost`, its `batchJobs`): each with its pool, GPUs, what became of it and
 * what it cost in the window and this month. The teams to choose from are those the overview counts batch jobs for;
 * with none, it says so and asks the backend nothing.
 */
export function BatchJobsTable(props: {
  overview: OverviewSummary;
  usageWindow: UsageWindowName;
}) {
  const { overview, usageWindow } = props;
  const gpuApi = useApi(gpuApiRef);
  const teams = overview.teams.filter(t => t.batchJobs).map(t => t.team);
  const [chosen, setChosen] = useState<string>();
  const team =
    chosen !== undefined && teams.includes(chosen) ? chosen : teams[0];
  const { value, loading, error } = useAsync(
    async () =>
      team === undefined ? undefined : gpuApi.getTeamCost(team, usageWindow),
    [gpuApi, team, usageWindow, overview],
  );

  const id = 'gpu-batch-jobs-team';
  const picker = teams.length > 0 && (
    <FormControl size="small" variant="outlined" style={{ minWidth: 200 }}>
      <InputLabel id={id}>Team</InputLabel>
      <Select
        labelId={id}
        label="Team"
        SelectDisplayProps={{ id: `${id}-value` }}
        value={team}
        onChange={e => setChosen(e.target.value as string)}
        data-testid="batch-jobs-team"
      >
        {teams.map(t => (
          <MenuItem key={t} value={t}>
            {t}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );

  let body;
  if (team === undefined) {
    body = (
      <Typography variant="body2" data-testid="batch-jobs-empty">
        No batch job held GPUs in the last {overview.window.label} or in{' '}
        {overview.month}.
      </Typography>
    );
  } else if (loading) {
    body = <Progress />;
  } else if (error) {
    body = (
      <ResponseErrorPanel
        error={error}
        title={`Could not load the batch jobs of team ${team}`}
      />
    );
  } else {
    const columns: TableColumn<BatchJobCostSummary>[] = [
      {
        title: 'Job',
        customSort: (a, b) => a.name.localeCompare(b.name),
        render: row => `${row.name} (${row.namespace})`,
      },
      { title: 'Pool', field: 'pool' },
      { title: 'GPUs', field: 'gpus', type: 'numeric' },
      {
        title: 'State',
        customSort: (a, b) => a.outcome.localeCompare(b.outcome),
        render: row => (
          <>
            <Typography variant="body2">
              {BATCH_JOB_OUTCOME_WORDS[row.outcome]}
            </Typography>
            <Typography variant="caption" color="textSecondary">
              {row.heldAt ? `from ${formatTime(row.heldAt)}` : ''}
              {row.releasedAt ? ` to ${formatTime(row.releasedAt)}` : ''}
              {row.finishReason ? `: ${row.finishReason}` : ''}
            </Typography>
          </>
        ),
      },
      {
        title: `GPU-hours, ${overview.window.label}`,
        customSort: (a, b) => a.gpuHours - b.gpuHours,
        render: row => formatGpuHours(row.gpuHours),
      },
      {
        title: `Cost, ${overview.window.label}`,
        customSort: (a, b) => a.allocationMicros - b.allocationMicros,
        render: row => formatUsd(row.allocationMicros),
      },
      {
        title: `Month-to-date (${overview.month})`,
        customSort: (a, b) => a.monthToDateMicros - b.monthToDateMicros,
        render: row => formatUsd(row.monthToDateMicros),
      },
      {
        title: 'Projected month',
        customSort: (a, b) => a.projectedMonthMicros - b.projectedMonthMicros,
        render: row => formatUsd(row.projectedMonthMicros),
      },
    ];
    body = (
      <Table<BatchJobCostSummary>
        title={`Batch jobs of ${team}`}
        subtitle="What each held at its pool's price, in its team's cost and budget burn (a batch job's utilisation is not measured)."
        options={{
          paging: false,
          search: false,
          draggable: false,
          padding: 'dense',
        }}
        columns={columns}
        data={value?.batchJobs ?? []}
        emptyContent={
          <Box p={2}>
            <Typography variant="body2" data-testid="batch-jobs-empty">
              Team {team} has no batch job that held GPUs in the last{' '}
              {overview.window.label} or in {overview.month}.
            </Typography>
          </Box>
        }
      />
    );
  }

  return (
    <Box>
      <Box
        display="flex"
        alignItems="center"
        justifyContent="space-between"
        mb={1}
      >
        <Typography variant="h6">Batch jobs</Typography>
        {picker}
      </Box>
      {body}
    </Box>
  );
}
