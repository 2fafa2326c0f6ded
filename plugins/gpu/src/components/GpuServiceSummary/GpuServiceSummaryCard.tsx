import {
  InfoCard,
  Progress,
  ResponseErrorPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/frontend-plugin-api';
import {
  MissingAnnotationEmptyState,
  useEntity,
} from '@backstage/plugin-catalog-react';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { isNotFound, useGpuChanges } from '../common';
import {
  GPU_SERVICE_ID_ANNOTATION,
  gpuServiceIdOf,
} from '../GpuServiceCard/annotations';
import { describeLifecycle } from '../GpuServiceCard/describeLifecycle';
import { describePlacement } from '../GpuServiceCard/describeService';
import { Figure } from '../GpuServiceCard/Figure';
import { useState } from 'react';
import { describeMonthToDate, describeSummaryStatus } from './describeSummary';

const TITLE = 'GPU service';

function Summary(props: { serviceId: string }) {
  const gpuApi = useApi(gpuApiRef);
  const [reload, setReload] = useState(0);
  useGpuChanges(() => setReload(n => n + 1), {
    filter: change =>
      change.kind === 'service' && change.serviceId === props.serviceId,
    debounceMs: 300,
  });
  const state = useAsync(async () => {
    const service = await gpuApi.getService(props.serviceId);
    const lifecycle = describeLifecycle(service);
    if (lifecycle && !lifecycle.hasCost) return { service, lifecycle };
    // The month-to-date figure is the same whatever the window; the shortest is the cheapest to compute.
    const cost = await gpuApi
      .getServiceCost(props.serviceId, '1h')
      .catch((error: Error) => error);
    return { service, lifecycle, cost };
  }, [gpuApi, props.serviceId, reload]);

  if (state.loading && !state.value) return <Progress />;
  if (state.error) {
    return isNotFound(state.error) ? (
      <Typography variant="body2" data-testid="service-not-found">
        No GPU service with id <code>{props.serviceId}</code>.
      </Typography>
    ) : (
      <ResponseErrorPanel
        error={state.error}
        title="Could not load the GPU service"
      />
    );
  }
  const { service, lifecycle, cost } = state.value!;
  const monthToDate = describeMonthToDate(service, lifecycle, cost);
  const replicas = service.request.replicas;
  return (
    <Grid container spacing={2} data-testid="gpu-summary">
      <Grid item xs={6}>
        <Figure
          testId="summary-tier"
          label="Tier"
          value={service.placement.tier}
          caption={`${describePlacement(service).replace(
            ` on ${service.placement.pool}`,
            '',
          )}, ${replicas} replica${replicas === 1 ? '' : 's'}`}
        />
      </Grid>
      <Grid item xs={6}>
        <Figure
          testId="summary-pool"
          label="Pool"
          value={service.placement.pool}
          caption={service.environment}
        />
      </Grid>
      <Grid item xs={6}>
        <Figure
          testId="summary-status"
          label="Status"
          value={describeSummaryStatus(service, lifecycle)}
          caption={lifecycle?.held}
        />
      </Grid>
      <Grid item xs={6}>
        <Figure
          testId="summary-month-to-date"
          label="Cost month-to-date"
          value={monthToDate.value}
          caption={monthToDate.caption}
        />
      </Grid>
    </Grid>
  );
}

/**
 * A small card at the top of the entity's overview: the GPU service's tier, pool, status (or where its request stands)
 * and month-to-date cost. The GPU tab has the rest.
 */
export function GpuServiceSummaryCard() {
  const { entity } = useEntity();
  const serviceId = gpuServiceIdOf(entity);
  return (
    <InfoCard title={TITLE} variant="gridItem">
      {serviceId ? (
        <Summary serviceId={serviceId} />
      ) : (
        <MissingAnnotationEmptyState annotation={GPU_SERVICE_ID_ANNOTATION} />
      )}
    </InfoCard>
  );
}
