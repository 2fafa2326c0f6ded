import { useApi } from '@backstage/frontend-plugin-api';
import {
  formatUsd,
  TeamQuotaView,
  toCents,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Button from '@material-ui/core/Button';
import Dialog from '@material-ui/core/Dialog';
import DialogActions from '@material-ui/core/DialogActions';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import Grid from '@material-ui/core/Grid';
import TextField from '@material-ui/core/TextField';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import { gpuApiRef } from '../../api';
import {
  errorMessage,
  formatGpuEquivalents,
  ErrorText,
  useFieldErrorStyles,
} from '../common';
import { QuotaFormValues, validateQuotaForm } from './validateQuotaForm';

function budgetText(micros: number): string {
  const cents = toCents(micros);
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}

function initialValues(quota: TeamQuotaView, pools: string[]): QuotaFormValues {
  return {
    pools: Object.fromEntries(
      pools.map(p => [
        p,
        quota.pools[p] === undefined ? '' : String(quota.pools[p]),
      ]),
    ),
    monthlyBudget: budgetText(quota.monthlyBudgetMicros),
  };
}

/** `quota in l4-ondemand: must be a number of 0 or more; monthly budget: ...`: what the fields' errors say, for one announcement. */
function invalidFieldsText(errors: Record<string, string>): string {
  return Object.entries(errors)
    .map(
      ([field, message]) =>
        `${
          field.startsWith('pools.')
            ? `quota in ${field.slice('pools.'.length)}`
            : 'monthly budget'
        }: ${message}`,
    )
    .join('; ');
}

/**
 * Edits a team's quota per pool and its monthly budget (`PUT /teams/:team/quota`). Inputs are checked before sending:
 * a Save they fail moves the focus to the first field to fix and announces every error in one alert; the backend's
 * answer to a refused change stays in the dialog, announced too.
 */
export function QuotaEditDialog(props: {
  quota: TeamQuotaView;
  /** Every pool of the platform, in display order. */
  pools: string[];
  onClose: () => void;
  onSaved: (quota: TeamQuotaView) => void;
}) {
  const { quota, pools, onClose, onSaved } = props;
  const gpuApi = useApi(gpuApiRef);
  const fieldErrors = useFieldErrorStyles();
  const [values, setValues] = useState(() => initialValues(quota, pools));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string>();

  async function save() {
    const result = validateQuotaForm(values);
    if (!result.ok) {
      setErrors(result.errors);
      setSaveError(undefined);
      // The first field to fix takes the focus; the summary below is announced.
      const first = Object.keys(result.errors)[0];
      const id = first?.startsWith('pools.')
        ? `gpu-quota-${first.slice('pools.'.length)}`
        : 'gpu-quota-monthly-budget';
      document.getElementById(id)?.focus();
      return;
    }
    setErrors({});
    setSaving(true);
    setSaveError(undefined);
    try {
      onSaved(await gpuApi.putTeamQuota(quota.team, result.body));
    } catch (e) {
      setSaveError(errorMessage(e));
      setSaving(false);
    }
  }

  function helperFor(pool: string): string {
    const held = quota.reservedGpuEquivalents[pool] ?? 0;
    const typed = Number(values.pools[pool]);
    if (errors[`pools.${pool}`]) return errors[`pools.${pool}`];
    if (held > 0 && values.pools[pool].trim() !== '' && typed < held) {
      return `Below the ${formatGpuEquivalents(
        held,
      )} held: running services keep their share, new requests need approval`;
    }
    return `Held: ${formatGpuEquivalents(held)}`;
  }

  return (
    <Dialog
      open
      onClose={saving ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="gpu-quota-edit-title"
    >
      <DialogTitle id="gpu-quota-edit-title">Quota of {quota.team}</DialogTitle>
      <DialogContent className={fieldErrors.fields}>
        <Typography variant="body2" paragraph>
          GPU-equivalents per pool (a MIG slice weighs the larger of its compute
          and memory share of the GPU, scaled so a GPU's slices add up to one;
          an MPS share is 1/replicas). Leave a pool empty for no quota there.
          Currently held: {formatUsd(quota.reservedMonthlyCostMicros)} per
          month.
        </Typography>
        <Grid container spacing={2}>
          {pools.map(pool => (
            <Grid item xs={12} sm={6} key={pool}>
              <TextField
                id={`gpu-quota-${pool}`}
                label={pool}
                value={values.pools[pool]}
                onChange={e =>
                  setValues(v => ({
                    ...v,
                    pools: { ...v.pools, [pool]: e.target.value },
                  }))
                }
                error={!!errors[`pools.${pool}`]}
                helperText={helperFor(pool)}
                inputProps={{
                  inputMode: 'decimal',
                  'aria-label': `Quota in ${pool}`,
                }}
                fullWidth
                variant="outlined"
                size="small"
              />
            </Grid>
          ))}
          <Grid item xs={12}>
            <TextField
              id="gpu-quota-monthly-budget"
              label="Monthly budget (USD)"
              value={values.monthlyBudget}
              onChange={e =>
                setValues(v => ({ ...v, monthlyBudget: e.target.value }))
              }
              error={!!errors.monthlyBudget}
              helperText={
                errors.monthlyBudget ??
                `Projected cost held now: ${formatUsd(
                  quota.reservedMonthlyCostMicros,
                )}`
              }
              inputProps={{
                inputMode: 'decimal',
                'aria-label': 'Monthly budget in USD',
              }}
              fullWidth
              variant="outlined"
              size="small"
            />
          </Grid>
        </Grid>
        {Object.keys(errors).length > 0 && (
          <ErrorText style={{ marginTop: 16 }} data-testid="quota-form-errors">
            Not saved: {invalidFieldsText(errors)}
          </ErrorText>
        )}
        {saveError && (
          <ErrorText style={{ marginTop: 16 }}>{saveError}</ErrorText>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={saving}>
          Cancel
        </Button>
        <Button
          onClick={save}
          color="primary"
          variant="contained"
          disabled={saving}
        >
          Save
        </Button>
      </DialogActions>
    </Dialog>
  );
}
