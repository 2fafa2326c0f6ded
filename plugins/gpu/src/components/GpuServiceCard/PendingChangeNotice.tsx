import {
  GpuServiceChangeSpec,
  GpuServiceView,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';

/** What a change alters, field by field, from the typed specs before and after it: `replicas 1 → 2`. */
export function describeChange(
  previous: GpuServiceChangeSpec,
  proposed: GpuServiceChangeSpec,
): string[] {
  const fields: Array<keyof GpuServiceChangeSpec> = [
    'tier',
    'pool',
    'cluster',
    'model',
    'replicas',
  ];
  return fields
    .filter(field => previous[field] !== proposed[field])
    .map(
      field =>
        `${field} ${previous[field] ?? 'none'} → ${proposed[field] ?? 'none'}`,
    );
}

function At(props: { iso: string }) {
  return (
    <time dateTime={props.iso}>{new Date(props.iso).toLocaleString()}</time>
  );
}

/**
 * Says that a GitOps service has a change pending until its pull request is merged (`pendingChange`): what it
 * changes, its request (a link), until when it may be merged or recorded, and, while the service says `ChangePending`,
 * that the cluster keeps running the spec Git holds until then.
 */
export function PendingChangeNotice(props: {
  service: Pick<GpuServiceView, 'pendingChange' | 'status' | 'reason'>;
}) {
  const { pendingChange, status, reason } = props.service;
  if (!pendingChange || status === 'deleting' || status === 'deleted') {
    return null;
  }
  const { previous, proposed, pullRequest, confirmBy } = pendingChange;
  const changes = describeChange(previous, proposed);
  return (
    <Typography
      variant="body2"
      component="div"
      data-testid="pending-change-notice"
    >
      <strong>Change pending</strong>
      {changes.length > 0 && (
        <span data-testid="pending-change-fields">: {changes.join(', ')}</span>
      )}
      .{' '}
      {pullRequest ? (
        <>
          Waiting for its pull request{' '}
          <a href={pullRequest.url} target="_blank" rel="noopener noreferrer">
            #{pullRequest.number}
          </a>{' '}
          to be merged
          {pullRequest.mergeBy && (
            <>
              {' '}
              by <At iso={pullRequest.mergeBy} />; otherwise it is closed and
              the change rolled back
            </>
          )}
          .
        </>
      ) : (
        <>
          Waiting for the template run that requested it to open its pull
          request
          {confirmBy && (
            <>
              ; otherwise rolled back at <At iso={confirmBy} />
            </>
          )}
          .
        </>
      )}
      {reason === 'ChangePending' && (
        <> Until then the cluster runs the previous spec, as Git holds it.</>
      )}
    </Typography>
  );
}
