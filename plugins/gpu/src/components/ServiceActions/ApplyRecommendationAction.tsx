import { useApi } from '@backstage/frontend-plugin-api';
import {
  formatUsd,
  gpuServiceUpdatePermission,
  GpuServiceView,
  Recommendation,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { usePermission } from '@backstage/plugin-permission-react';
import Button from '@material-ui/core/Button';
import Dialog from '@material-ui/core/Dialog';
import DialogActions from '@material-ui/core/DialogActions';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import LinearProgress from '@material-ui/core/LinearProgress';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { ErrorText, errorMessage } from '../common';
import { canChange } from './ChangeServiceAction';
import { costEffect } from './changeChoices';
import {
  describePlacement,
  monthlyCostMicros,
} from '../GpuServiceCard/describeService';

/** Whether a recommendation proposes a change `PATCH /services/:id` can make (a tier and pool to move to). */
export function isApplicable(
  service: GpuServiceView,
  recommendation: Recommendation,
): boolean {
  return recommendation.target !== undefined && canChange(service);
}

function ChangeDialog(props: {
  service: GpuServiceView;
  recommendation: Recommendation;
  onClose: () => void;
  onDone: (service: GpuServiceView) => void;
}) {
  const { service, recommendation, onClose, onDone } = props;
  const target = recommendation.target!;
  const gpuApi = useApi(gpuApiRef);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();
  // The backend re-quotes the request with the new tier and pool and takes the recommended option: so does this.
  const quote = useAsync(
    () =>
      gpuApi.quote({
        ...service.request,
        tier: target.tier,
        pool: target.pool,
      }),
    [gpuApi, service.id, target.tier, target.pool],
  );
  const option = quote.value?.recommended;

  async function confirm() {
    setSubmitting(true);
    setError(undefined);
    try {
      const result = await gpuApi.updateService(service.id, {
        tier: target.tier,
        pool: target.pool,
      });
      onDone(result);
    } catch (e) {
      setError(errorMessage(e));
      setSubmitting(false);
    }
  }

  const targetSlice = `${target.tier}${
    target.migProfile ? ` ${target.migProfile}` : ''
  } on ${target.pool}`;
  return (
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="gpu-apply-recommendation-title"
    >
      <DialogTitle id="gpu-apply-recommendation-title">
        {recommendation.title}
      </DialogTitle>
      <DialogContent data-testid="recommendation-effect">
        <Typography variant="body2" paragraph>
          Moves {service.name} from {describePlacement(service)} (
          {service.monthlyCost} a month) to {targetSlice}.
        </Typography>
        {quote.loading && <LinearProgress aria-label="Quoting the change" />}
        {quote.error && (
          <ErrorText>
            Could not quote the change: {errorMessage(quote.error)}
          </ErrorText>
        )}
        {quote.value && !option && (
          <ErrorText>
            The backend offers no way to run {service.name} on {targetSlice}{' '}
            now.
          </ErrorText>
        )}
        {option && (
          <>
            {option.slice.migProfile !== target.migProfile && (
              <Typography variant="body2" paragraph data-testid="change-slice">
                The recommendation's {target.migProfile ?? target.tier} slice
                does not hold the request as it is configured: the backend
                places it on {option.slice.migProfile ?? option.slice.tier}{' '}
                instead.
              </Typography>
            )}
            <Typography variant="body2" paragraph data-testid="change-cost">
              New cost {formatUsd(option.cost.monthly)} a month:{' '}
              {costEffect(monthlyCostMicros(service), option.cost.monthly)}.
            </Typography>
            <Typography variant="body2" paragraph data-testid="change-approval">
              {option.verdict === 'needs-approval'
                ? `Needs approval: ${option.reasons.join(
                    '; ',
                  )}. The service keeps its current placement until a platform approver decides.`
                : 'No approval needed: the change is applied at once.'}
            </Typography>
          </>
        )}
        {error && <ErrorText>Could not apply the change: {error}</ErrorText>}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          color="primary"
          variant="contained"
          onClick={confirm}
          disabled={submitting || !option || option.verdict === 'forbidden'}
        >
          {option?.verdict === 'needs-approval'
            ? 'Request the change'
            : 'Apply the change'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/**
 * "Apply recommendation" on a recommendation that proposes another tier and pool: with `gpu.service.update` on the
 * service, a dialog with the change's cost effect and whether it needs approval (quoted as the backend will), then
 * `PATCH /services/:id`.
 */
export function ApplyRecommendationAction(props: {
  service: GpuServiceView;
  recommendation: Recommendation;
  onDone: (service: GpuServiceView) => void;
}) {
  const { service, recommendation, onDone } = props;
  const { allowed, loading } = usePermission({
    permission: gpuServiceUpdatePermission,
    resourceRef: service.id,
  });
  const [open, setOpen] = useState(false);
  if (!isApplicable(service, recommendation)) return null;
  return (
    <>
      <Button
        size="small"
        color="primary"
        variant="outlined"
        disabled={loading || !allowed}
        title={
          !loading && !allowed
            ? 'You may not change this service (gpu.service.update)'
            : undefined
        }
        onClick={() => setOpen(true)}
      >
        Apply recommendation
      </Button>
      {open && (
        <ChangeDialog
          service={service}
          recommendation={recommendation}
          onClose={() => setOpen(false)}
          onDone={result => {
            setOpen(false);
            onDone(result);
          }}
        />
      )}
    </>
  );
}
