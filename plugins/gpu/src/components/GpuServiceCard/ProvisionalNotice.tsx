import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';

/**
 * Says that a service is still provisional: the template run that requested it has not confirmed it, and unless it
 * does, the backend deletes it and releases its quota at `confirmBy`.
 */
export function ProvisionalNotice(props: {
  service: Pick<GpuServiceView, 'confirmBy' | 'status'>;
}) {
  const { confirmBy, status } = props.service;
  if (!confirmBy || status === 'deleting' || status === 'deleted') {
    return null;
  }
  return (
    <Typography
      variant="body2"
      component="div"
      data-testid="provisional-notice"
    >
      Provisional: kept once the template run that requested it finishes;
      otherwise deleted, and its quota released, at{' '}
      <time dateTime={confirmBy}>{new Date(confirmBy).toLocaleString()}</time>.
    </Typography>
  );
}
