import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
  WarningPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  formatUsd,
  UsageWindowName,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { WindowSelect } from '../common';
import { BudgetBurnTable } from './BudgetBurnTable';
import { CostLeaderboard } from './CostLeaderboard';
import { monthElapsed } from './monthElapsed';
import { WasteLeaderboard } from './WasteLeaderboard';

const METRICS_NOTE: Record<string, string> = {
  'not-configured':
    'No metrics source is configured (gpu.prometheus.baseUrl): costs are allocations from the database; idle cost and utilisation need Prometheus.',
  unavailable:
    'Prometheus is unavailable: costs are allocations only, usage is unavailable.',
  'no-data':
    'Prometheus has no series for these services yet: costs are allocations only.',
  partial: 'Some metrics are missing: figures that need them are left out.',
};

/** Cost and waste of every service at once (`GET /overview`): budget burn per team, cost and waste leaderboards. */
export function CostOverviewSection(props: { refreshKey?: number }) {
  const gpuApi = useApi(gpuApiRef);
  const [usageWindow, setUsageWindow] = useState<UsageWindowName>('7d');
  const { value, loading, error } = useAsync(
    () => gpuApi.getOverview(usageWindow),
    [gpuApi, usageWindow, props.refreshKey],
  );

  let body;
  if (loading) {
    body = <Progress />;
  } else if (error) {
    body = (
      <ResponseErrorPanel error={error} title="Could not load cost and waste" />
    );
  } else if (value) {
    const note = METRICS_NOTE[value.metrics.state];
    body = (
      <Grid container spacing={2}>
        {note && (
          <Grid item xs={12}>
            <WarningPanel
              defaultExpanded
              severity={
                value.metrics.state === 'unavailable' ? 'warning' : 'info'
              }
              title={note}
              message={
                value.metrics.reason ?? value.metrics.missing?.join(', ')
              }
            />
          </Grid>
        )}
        <Grid item xs={12}>
          <Typography variant="body2" data-testid="overview-totals">
            {value.services.length} service(s):{' '}
            {formatUsd(value.monthToDateMicros)} month-to-date, projected{' '}
            {formatUsd(value.projectedMonthMicros)}, spot saving{' '}
            {formatUsd(value.spotSavingMicros)}
            {value.reservedMicros
              ? `, ${formatUsd(value.reservedMicros)} reserved in ${
                  value.window.label
                } while nothing ran (dry runs, workloads not running: not spend)`
              : ''}
            {value.queryCount > 0
              ? ` (from ${value.queryCount} PromQL queries)`
              : ''}
            .
          </Typography>
        </Grid>
        <Grid item xs={12}>
          <BudgetBurnTable
            overview={value}
            elapsed={monthElapsed(value.month, value.window.end)}
          />
        </Grid>
        <Grid item xs={12}>
          <CostLeaderboard overview={value} />
        </Grid>
        <Grid item xs={12}>
          <WasteLeaderboard overview={value} />
        </Grid>
      </Grid>
    );
  }

  return (
    <InfoCard
      title="Cost and waste"
      action={
        <Box pt={1} pr={1}>
          <WindowSelect
            value={usageWindow}
            onChange={setUsageWindow}
            id="gpu-overview-window"
          />
        </Box>
      }
    >
      {body}
    </InfoCard>
  );
}
