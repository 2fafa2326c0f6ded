import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
  WarningPanel,
} from '@backstage/core-components';
import {
  clusterModeInWords,
  UsageWindowName,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Divider from '@material-ui/core/Divider';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import { errorMessage, isNotFound, WindowSelect } from '../common';
import { GPU_SERVICE_ID_ANNOTATION } from './annotations';
import { AutoscalingSection } from './AutoscalingSection';
import { ClusterStatusSection } from './ClusterStatusSection';
import { CostFigures } from './CostFigures';
import {
  ApplyRecommendationAction,
  ChangeServiceAction,
  DecommissionAction,
} from '../ServiceActions';
import { describeLifecycle } from './describeLifecycle';
import { describeService } from './describeService';
import { LifecycleNotice } from './LifecycleNotice';
import { PendingChangeNotice } from './PendingChangeNotice';
import { ProvisionalNotice } from './ProvisionalNotice';
import { MetricsNotice } from './MetricsNotice';
import { RecommendationList } from './RecommendationList';
import { MemoryChart, ThroughputChart, UtilisationChart } from './UsageCharts';
import { TokenFigures } from './TokenFigures';
import { UsageFigures } from './UsageFigures';
import { useGpuServiceData } from './useGpuServiceData';

const TITLE = 'GPU usage and cost';

/**
 * The card's body for one gpu service id: placement, what the cluster says (apply mode; read again every few seconds
 * while the service is applying or starting), usage charts and figures, cost and recommendations for a window, with
 * a state for each way data can be missing.
 */
export function GpuServiceCardContent(props: {
  serviceId: string;
  initialWindow?: UsageWindowName;
}) {
  const [usageWindow, setUsageWindow] = useState<UsageWindowName>(
    props.initialWindow ?? '24h',
  );
  const { service, figures, reload } = useGpuServiceData(
    props.serviceId,
    usageWindow,
  );

  if (service.loading && !service.value) {
    return (
      <InfoCard title={TITLE}>
        <Progress />
      </InfoCard>
    );
  }
  if (service.error && !service.value) {
    return (
      <InfoCard title={TITLE}>
        {isNotFound(service.error) ? (
          <Typography variant="body2" data-testid="service-not-found">
            <strong>Service not found.</strong> The gpu backend has no service
            with id <code>{props.serviceId}</code>, the value of this entity's{' '}
            <code>{GPU_SERVICE_ID_ANNOTATION}</code> annotation. The service may
            have been deleted or the annotation mistyped.
          </Typography>
        ) : (
          <ResponseErrorPanel
            error={service.error}
            title="Could not load the GPU service"
          />
        )}
      </InfoCard>
    );
  }

  const svc = service.value!;
  const lifecycle = describeLifecycle(svc);
  const showFigures = lifecycle?.hasCost ?? true;
  const action = (
    <Box pt={1} pr={1} display="flex" alignItems="center" style={{ gap: 8 }}>
      <ChangeServiceAction service={svc} onDone={reload} />
      <DecommissionAction service={svc} onDone={reload} />
      {showFigures && (
        <WindowSelect
          value={usageWindow}
          onChange={setUsageWindow}
          id="gpu-service-card-window"
        />
      )}
    </Box>
  );
  const usage =
    figures.usage && 'value' in figures.usage ? figures.usage.value : undefined;
  const cost =
    figures.cost && 'value' in figures.cost ? figures.cost.value : undefined;
  const usageError =
    figures.usage && 'error' in figures.usage ? figures.usage.error : undefined;
  const costError =
    figures.cost && 'error' in figures.cost ? figures.cost.error : undefined;
  const metrics = usage?.metrics ?? cost?.metrics;
  const hasSeries =
    usage !== undefined &&
    (usage.series.utilisation.length > 0 ||
      usage.series.memoryUsedBytes.length > 0 ||
      usage.series.generatedTokensPerSecond.length > 0);

  return (
    <InfoCard title={TITLE} subheader={describeService(svc)} action={action}>
      {service.refreshError && (
        <Typography
          variant="body2"
          color="textSecondary"
          data-testid="service-refresh-error"
        >
          Could not refresh the service ({errorMessage(service.refreshError)});
          showing the previous answer and trying again.
        </Typography>
      )}
      {lifecycle && <LifecycleNotice state={lifecycle} />}
      <ProvisionalNotice service={svc} />
      <PendingChangeNotice service={svc} />
      {svc.cluster && (
        <Typography
          variant="body2"
          color="textSecondary"
          data-testid="service-cluster"
        >
          Cluster: <strong>{svc.cluster}</strong> (
          {clusterModeInWords(svc.mode)})
        </Typography>
      )}
      {!svc.clusterStatus && svc.mode !== 'apply' && (
        <Typography
          variant="body2"
          color="textSecondary"
          paragraph
          data-testid="cluster-not-read"
        >
          {svc.mode === 'dry-run'
            ? 'In the cluster: nothing. No cluster is configured (dry-run), so the service is rendered and stored but not applied: no pods run.'
            : 'In the cluster: applied by your GitOps controller from the published manifests; Backstage does not read that cluster.'}
        </Typography>
      )}
      <AutoscalingSection service={svc} />
      {svc.clusterStatus && (
        <Box mb={2}>
          <ClusterStatusSection
            service={svc}
            clusterStatus={svc.clusterStatus}
            polling={service.polling}
          />
          <Box mt={2}>
            <Divider />
          </Box>
        </Box>
      )}
      {showFigures && figures.loading && <Progress />}
      {showFigures && !figures.loading && (
        <Grid container spacing={2}>
          {metrics && (
            <Grid item xs={12}>
              <MetricsNotice metrics={metrics} windowLabel={usageWindow} />
            </Grid>
          )}
          {usageError && (
            <Grid item xs={12}>
              <WarningPanel
                defaultExpanded
                severity="warning"
                title="Usage is unavailable"
                message={`${errorMessage(
                  usageError,
                )}. Showing the allocation cost only.`}
              />
            </Grid>
          )}
          {usage && hasSeries && (
            <>
              <Grid item xs={12} md={6}>
                <UtilisationChart usage={usage} />
                <MemoryChart usage={usage} />
              </Grid>
              <Grid item xs={12} md={6}>
                <ThroughputChart usage={usage} />
                <UsageFigures usage={usage} />
              </Grid>
            </>
          )}
          <Grid item xs={12}>
            <Divider />
          </Grid>
          <Grid item xs={12}>
            {cost && <CostFigures cost={cost} />}
            {cost && <TokenFigures cost={cost} />}
            {costError && (
              <>
                <ResponseErrorPanel
                  error={costError}
                  title="Could not load the cost"
                />
                {(lifecycle?.holds ?? true) && (
                  <Typography
                    variant="body2"
                    data-testid="fallback-monthly-cost"
                  >
                    Allocation held: {svc.monthlyCost} per month for{' '}
                    {svc.gpuEquivalents} GPU-equivalent(s).
                  </Typography>
                )}
              </>
            )}
          </Grid>
          {cost && (
            <Grid item xs={12}>
              <Typography variant="subtitle2">Recommendation</Typography>
              <RecommendationList
                recommendations={cost.recommendations}
                measured={
                  cost.metrics.state === 'available' ||
                  cost.metrics.state === 'partial'
                }
                action={r => (
                  <ApplyRecommendationAction
                    service={svc}
                    recommendation={r}
                    onDone={reload}
                  />
                )}
              />
            </Grid>
          )}
        </Grid>
      )}
    </InfoCard>
  );
}
