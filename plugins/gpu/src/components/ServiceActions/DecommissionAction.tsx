import { useApi } from '@backstage/frontend-plugin-api';
import {
  gpuServiceDeletePermission,
  GpuServiceView,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { usePermission } from '@backstage/plugin-permission-react';
import Button from '@material-ui/core/Button';
import Dialog from '@material-ui/core/Dialog';
import DialogActions from '@material-ui/core/DialogActions';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import { gpuApiRef } from '../../api';
import { DestructiveButton, ErrorText, errorMessage } from '../common';
import { describeDecommission } from './describeDecommission';

/** Statuses from which a service can be decommissioned (it holds something, or asks to). */
export function canDecommission(service: GpuServiceView): boolean {
  return !['deleted', 'deleting', 'rejected'].includes(service.status);
}

/**
 * "Decommission": with `gpu.service.delete` on the service, a confirmation that says what is freed (GPUs or slices,
 * quota, monthly cost), then `DELETE /services/:id`. A failed call keeps the dialog open with the backend's message.
 */
export function DecommissionAction(props: {
  service: GpuServiceView;
  onDone: (service: GpuServiceView) => void;
}) {
  const { service, onDone } = props;
  const gpuApi = useApi(gpuApiRef);
  const { allowed, loading } = usePermission({
    permission: gpuServiceDeletePermission,
    resourceRef: service.id,
  });
  const [open, setOpen] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();

  if (!canDecommission(service)) return null;

  async function confirm() {
    setSubmitting(true);
    setError(undefined);
    try {
      const result = await gpuApi.deleteService(service.id);
      setOpen(false);
      setSubmitting(false);
      onDone(result);
    } catch (e) {
      setError(errorMessage(e));
      setSubmitting(false);
    }
  }

  return (
    <>
      <DestructiveButton
        size="small"
        disabled={loading || !allowed}
        title={
          !loading && !allowed
            ? 'You may not decommission this service (gpu.service.delete)'
            : undefined
        }
        onClick={() => setOpen(true)}
      >
        Decommission
      </DestructiveButton>
      {open && (
        <Dialog
          open
          onClose={submitting ? undefined : () => setOpen(false)}
          fullWidth
          maxWidth="sm"
          aria-labelledby="gpu-decommission-title"
        >
          <DialogTitle id="gpu-decommission-title">
            Decommission {service.name}?
          </DialogTitle>
          <DialogContent data-testid="decommission-effect">
            {describeDecommission(service).map(line => (
              <Typography key={line} variant="body2" paragraph>
                {line}
              </Typography>
            ))}
            {error && <ErrorText>Could not decommission: {error}</ErrorText>}
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setOpen(false)} disabled={submitting}>
              Cancel
            </Button>
            <Button
              color="secondary"
              variant="contained"
              onClick={confirm}
              disabled={submitting}
            >
              {submitting ? 'Decommissioning…' : 'Decommission'}
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </>
  );
}
