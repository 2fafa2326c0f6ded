import { GpuServiceDetail } from '@gpu-platform/backstage-plugin-gpu-common';
import Box from '@material-ui/core/Box';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import { Figure } from './Figure';

/**
 * The replica range of an autoscaled service: the replicas running now (ready), the autoscaler's desired count (the
 * Deployment's `spec.replicas`, which KEDA or the HPA sets), and the minimum and maximum the service asked for; and,
 * when it scales to zero through KEDA's HTTP add-on, the endpoint that wakes it. Nothing for a fixed-size service.
 */
export function AutoscalingSection(props: { service: GpuServiceDetail }) {
  const { service } = props;
  const autoscaling = service.request.autoscaling;
  if (!autoscaling) return null;
  const deployment = service.clusterStatus?.deployment;
  const unknown = service.mode === 'apply' ? '…' : '—';
  return (
    <Box mb={2} data-testid="autoscaling-section">
      <Typography variant="subtitle2" gutterBottom>
        Autoscaling ({autoscaling.engine === 'keda' ? 'KEDA' : 'HPA'}, on the
        queue: {autoscaling.targetQueueDepth} waiting requests per replica)
      </Typography>
      <Grid container spacing={2}>
        <Grid item xs={3}>
          <Figure
            label="Current"
            value={deployment ? deployment.readyReplicas : unknown}
            testId="replicas-current"
          />
        </Grid>
        <Grid item xs={3}>
          <Figure
            label="Desired"
            value={deployment ? deployment.replicas : unknown}
            testId="replicas-desired"
          />
        </Grid>
        <Grid item xs={3}>
          <Figure
            label="Minimum"
            value={autoscaling.minReplicas}
            testId="replicas-min"
            caption={
              autoscaling.minReplicas === 0 ? 'scales to zero' : undefined
            }
          />
        </Grid>
        <Grid item xs={3}>
          <Figure
            label="Maximum"
            value={autoscaling.maxReplicas}
            testId="replicas-max"
          />
        </Grid>
      </Grid>
      {service.endpointHost && (
        <Typography
          variant="body2"
          color="textSecondary"
          data-testid="wake-endpoint"
        >
          Wake endpoint: <code>{service.endpoint}</code> with{' '}
          <code>Host: {service.endpointHost}</code>. A request there is held
          while the service scales from zero, then answered.
        </Typography>
      )}
    </Box>
  );
}
