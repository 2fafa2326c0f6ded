import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
  WarningPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  formatUsd,
  gpuQuotaReadPermission,
  UsageWindowName,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { SimulatedMetricsLabel, WindowSelect } from '../common';
import { BatchJobsTable } from './BatchJobsTable';
import { BudgetBurnTable } from './BudgetBurnTable';
import { CostExportForm } from './CostExportForm';
import { GroupRollUpTable } from './GroupRollUpTable';
import { CostLeaderboard } from './CostLeaderboard';
import { monthElapsed } from './monthElapsed';
import { UsageCompletenessNote } from './UsageCompletenessNote';
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

/**
 * Cost and waste of every service at once (`GET /overview`): budget burn per team, a team's batch jobs, cost per
 * catalog group with its child groups, cost and waste leaderboards (their first page from the overview, the rest paged, searched and sorted
 * by the backend: `GET /overview/services`), and the FOCUS CSV export. Only
 * for those who may read every team's quota (the platform team): others are told so, and nothing is asked of the
 * backend. With `cluster`, the backend narrows the overview to that cluster (`GET /overview?cluster=`).
 */
export function CostOverviewSection(props: {
  refreshKey?: number;
  cluster?: string;
}) {
  const [usageWindow, setUsageWindow] = useState<UsageWindowName>('7d');
  const { allowed, loading } = usePermission({
    permission: gpuQuotaReadPermission,
  });

  let body;
  if (loading) {
    body = <Progress />;
  } else if (!allowed) {
    body = (
      <Typography variant="body2">
        The cost and waste of every team are the platform team's (permission
        gpu.quota.read).
      </Typography>
    );
  } else {
    body = (
      <CostOverview
        usageWindow={usageWindow}
        refreshKey={props.refreshKey}
        cluster={props.cluster}
      />
    );
  }

  return (
    <InfoCard
      title="Cost and waste"
      action={
        allowed && (
          <Box pt={1} pr={1}>
            <WindowSelect
              value={usageWindow}
              onChange={setUsageWindow}
              id="gpu-overview-window"
            />
          </Box>
        )
      }
    >
      {body}
    </InfoCard>
  );
}

/** The overview of one window: totals, budget burn and the leaderboards. */
function CostOverview(props: {
  usageWindow: UsageWindowName;
  refreshKey?: number;
  cluster?: string;
}) {
  const gpuApi = useApi(gpuApiRef);
  const { value, loading, error } = useAsync(
    () => gpuApi.getOverview(props.usageWindow, props.cluster),
    [gpuApi, props.usageWindow, props.refreshKey, props.cluster],
  );

  if (loading) {
    return <Progress />;
  }
  if (error) {
    return (
      <ResponseErrorPanel error={error} title="Could not load cost and waste" />
    );
  }
  if (!value) return null;
  const note = METRICS_NOTE[value.metrics.state];
  return (
    <Grid container spacing={2}>
      {value.metrics.simulated && (
        <Grid item xs={12}>
          <SimulatedMetricsLabel metrics={value.metrics} />
        </Grid>
      )}
      {note && (
        <Grid item xs={12}>
          <WarningPanel
            defaultExpanded
            severity={
              value.metrics.state === 'unavailable' ? 'warning' : 'info'
            }
            title={note}
            message={value.metrics.reason ?? value.metrics.missing?.join(', ')}
          />
        </Grid>
      )}
      <Grid item xs={12}>
        <Typography variant="body2" data-testid="overview-totals">
          {value.serviceCount} service(s): {formatUsd(value.monthToDateMicros)}{' '}
          month-to-date, projected {formatUsd(value.projectedMonthMicros)}, spot
          saving {formatUsd(value.spotSavingMicros)}
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
        <UsageCompletenessNote
          withoutUsage={value.withoutUsage}
          withoutUsageCount={value.withoutUsageCount}
          aboveShareMicros={value.aboveShareMicros}
          windowLabel={value.window.label}
        />
      </Grid>
      <Grid item xs={12}>
        <BudgetBurnTable
          overview={value}
          elapsed={monthElapsed(value.month, value.window.end)}
        />
      </Grid>
      <Grid item xs={12}>
        <BatchJobsTable overview={value} usageWindow={props.usageWindow} />
      </Grid>
      <Grid item xs={12}>
        <GroupRollUpTable overview={value} />
      </Grid>
      <Grid item xs={12}>
        <CostLeaderboard
          overview={value}
          usageWindow={props.usageWindow}
          cluster={props.cluster}
        />
      </Grid>
      <Grid item xs={12}>
        <WasteLeaderboard
          overview={value}
          usageWindow={props.usageWindow}
          cluster={props.cluster}
        />
      </Grid>
      <Grid item xs={12}>
        <CostExportForm />
      </Grid>
    </Grid>
  );
}
