import { useApi } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import {
  formatUsd,
  gpuServiceUpdatePermission,
  GpuServiceView,
  QuoteOption,
  ServiceRequest,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Button from '@material-ui/core/Button';
import Dialog from '@material-ui/core/Dialog';
import DialogActions from '@material-ui/core/DialogActions';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import LinearProgress from '@material-ui/core/LinearProgress';
import TextField from '@material-ui/core/TextField';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';
import { ErrorText, errorMessage } from '../common';
import {
  describePlacement,
  monthlyCostMicros,
} from '../GpuServiceCard/describeService';
import {
  changeBody,
  choiceKey,
  costEffect,
  describeOptionSlice,
  replicaRange,
  tierPoolChoices,
} from './changeChoices';

/** Statuses in which `PATCH /services/:id` takes a change (the service holds its placement and is not applying). */
export function canChange(service: GpuServiceView): boolean {
  return (
    ['approved', 'starting', 'ready', 'failed'].includes(service.status) &&
    service.approval?.state !== 'pending'
  );
}

/** The service's request without a tier and pool: what a quote of every tier and pool is asked. */
function everyTier(request: ServiceRequest, replicas: number): ServiceRequest {
  const {
    tier: _tier,
    pool: _pool,
    measuredTokensPerSecond: _measured,
    ...rest
  } = request;
  return { ...rest, replicas };
}

function replicasWord(n: number): string {
  return `${n} replica${n === 1 ? '' : 's'}`;
}

function ApprovalEffect(props: { option: QuoteOption }) {
  const { option } = props;
  if (option.verdict === 'forbidden') {
    return (
      <ErrorText role={undefined} data-testid="change-approval">
        Not allowed: {option.reasons.join('; ')}.
      </ErrorText>
    );
  }
  return (
    <Typography variant="body2" paragraph data-testid="change-approval">
      {option.verdict === 'needs-approval'
        ? `Needs approval: ${option.reasons.join(
            '; ',
          )}. The service keeps its current placement until a platform approver decides.`
        : 'No approval needed: the change is applied at once.'}
    </Typography>
  );
}

function ChangeServiceDialog(props: {
  service: GpuServiceView;
  onClose: () => void;
  onDone: (service: GpuServiceView) => void;
}) {
  const { service, onClose, onDone } = props;
  const gpuApi = useApi(gpuApiRef);
  const range = replicaRange(service);
  const [tierPool, setTierPool] = useState(
    choiceKey(service.placement.tier, service.placement.pool),
  );
  const [replicasText, setReplicasText] = useState(
    String(service.request.replicas),
  );
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string>();

  const replicas = Number(replicasText);
  const replicasValid =
    Number.isInteger(replicas) &&
    replicas >= range.min &&
    replicas <= range.max;
  const [tier, pool] = tierPool.split('/') as [SharingTier, string];

  // Every tier and pool the model fits at this size: the choices.
  const everyOption = useAsync(
    async () =>
      replicasValid
        ? gpuApi.quote(everyTier(service.request, replicas))
        : undefined,
    [gpuApi, service.id, replicas, replicasValid],
  );
  // The backend re-quotes the request with the change and takes the recommended option: so does this.
  const quote = useAsync(
    async () =>
      replicasValid
        ? gpuApi.quote({ ...service.request, tier, pool, replicas })
        : undefined,
    [gpuApi, service.id, tier, pool, replicas, replicasValid],
  );
  const option = quote.value?.recommended;
  const choices = tierPoolChoices(service, everyOption.value);
  const body = replicasValid
    ? changeBody(service, { tier, pool, replicas })
    : undefined;

  async function apply() {
    if (!body) return;
    setSubmitting(true);
    setError(undefined);
    try {
      onDone(await gpuApi.updateService(service.id, body));
    } catch (e) {
      setError(errorMessage(e));
      setSubmitting(false);
    }
  }

  return (
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="gpu-change-service-title"
      aria-describedby="gpu-change-service-now"
    >
      <DialogTitle id="gpu-change-service-title">
        Change tier or size of {service.name}
      </DialogTitle>
      <DialogContent>
        <Typography
          variant="body2"
          paragraph
          id="gpu-change-service-now"
          data-testid="change-now"
        >
          Now: {describePlacement(service)},{' '}
          {replicasWord(service.request.replicas)}, {service.monthlyCost} a
          month.
        </Typography>
        <TextField
          select
          fullWidth
          margin="dense"
          variant="outlined"
          id="gpu-change-service-tier-pool"
          label="Tier and pool"
          value={tierPool}
          onChange={event => setTierPool(event.target.value)}
          SelectProps={{ native: true }}
          helperText="Tiers and pools the model fits that the environment allows; the backend picks the slice in it."
        >
          {choices.map(choice => (
            <option key={choice.key} value={choice.key}>
              {choice.label}
            </option>
          ))}
        </TextField>
        <TextField
          fullWidth
          margin="dense"
          variant="outlined"
          id="gpu-change-service-replicas"
          label="Replicas"
          type="number"
          value={replicasText}
          onChange={event => setReplicasText(event.target.value)}
          inputProps={{ min: range.min, max: range.max, step: 1 }}
          error={!replicasValid}
          helperText={
            replicasValid
              ? `${range.min} to ${range.max}${
                  service.request.autoscaling ? ' (its autoscaling range)' : ''
                }`
              : `Replicas must be a whole number from ${range.min} to ${range.max}`
          }
        />
        {(quote.loading || everyOption.loading) && (
          <LinearProgress aria-label="Quoting the change" />
        )}
        {quote.error && (
          <ErrorText>
            Could not quote the change: {errorMessage(quote.error)}
          </ErrorText>
        )}
        {replicasValid && quote.value && !option && (
          <ErrorText>
            {service.name} does not fit {tier} on {pool} with{' '}
            {replicasWord(replicas)}
            {quote.value.unavailable[0]
              ? `: ${quote.value.unavailable[0].reason}`
              : ''}
            .
          </ErrorText>
        )}
        {option && !quote.loading && (
          <>
            <Typography variant="body2" paragraph data-testid="change-cost">
              After: {describeOptionSlice(option)}, {replicasWord(replicas)},{' '}
              {formatUsd(option.cost.monthly)} a month:{' '}
              {costEffect(monthlyCostMicros(service), option.cost.monthly)}.
            </Typography>
            <ApprovalEffect option={option} />
          </>
        )}
        {replicasValid && !body && (
          <Typography variant="body2" color="textSecondary">
            Choose another tier, pool or number of replicas.
          </Typography>
        )}
        {error && (
          <ErrorText>
            Could not change {service.name}: {error}
          </ErrorText>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          color="primary"
          variant="contained"
          onClick={apply}
          disabled={
            submitting ||
            !body ||
            quote.loading ||
            !option ||
            option.verdict === 'forbidden'
          }
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
 * "Change tier or size": with `gpu.service.update` on the service, a dialog to choose another tier and pool or
 * number of replicas, quoted as the backend will (cost now and after, whether it needs approval and why), then
 * `PATCH /services/:id`.
 */
export function ChangeServiceAction(props: {
  service: GpuServiceView;
  onDone: (service: GpuServiceView) => void;
}) {
  const { service, onDone } = props;
  const { allowed, loading } = usePermission({
    permission: gpuServiceUpdatePermission,
    resourceRef: service.id,
  });
  const [open, setOpen] = useState(false);
  if (!canChange(service)) return null;
  return (
    <>
      <Button
        variant="outlined"
        size="small"
        color="primary"
        disabled={loading || !allowed}
        title={
          !loading && !allowed
            ? 'You may not change this service (gpu.service.update)'
            : undefined
        }
        onClick={() => setOpen(true)}
        style={{ whiteSpace: 'nowrap' }}
      >
        Change tier or size
      </Button>
      {open && (
        <ChangeServiceDialog
          service={service}
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
