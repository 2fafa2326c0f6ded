import { WarningPanel } from '@backstage/core-components';
import FormControl from '@material-ui/core/FormControl';
import FormHelperText from '@material-ui/core/FormHelperText';
import FormLabel from '@material-ui/core/FormLabel';
import LinearProgress from '@material-ui/core/LinearProgress';
import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import TableCell from '@material-ui/core/TableCell';
import TableHead from '@material-ui/core/TableHead';
import TableRow from '@material-ui/core/TableRow';
import Typography from '@material-ui/core/Typography';
import { useEffect, useMemo, useRef } from 'react';
import { TIER_LABELS } from './describeChoice';
import { dtypeSummary, unavailableQuotedDtype } from './dtypeAvailability';
import { errorMessage } from '../common';
import { requestFromForm, ServiceForm } from './requestFromForm';
import {
  choiceKey,
  problemWith,
  sameValue,
  TierChoice,
  tierChoices,
  valueOf,
} from './tierChoices';
import { TierChoiceRow } from './TierChoiceRow';
import { TierPickerProps } from './types';
import { useDebouncedQuote } from './useDebouncedQuote';

/**
 * The `GpuTierPicker` scaffolder field: quotes the service the form describes as the user types, lists every tier
 * and pool with fit, headroom, cost, isolation, quota and policy, preselects the recommendation and stores the
 * chosen tier and pool.
 */
export function TierPicker(props: TierPickerProps) {
  const {
    formData: rawValue,
    onChange,
    formContext,
    rawErrors,
    required,
    disabled,
    readonly,
    schema,
    idSchema,
  } = props;
  // RJSF hands an object field `{}` until something is chosen.
  const value = rawValue?.tier && rawValue.pool ? rawValue : undefined;
  const form = (formContext as { formData?: ServiceForm } | undefined)
    ?.formData;
  const built = requestFromForm(form);
  const { quote, loading, error } = useDebouncedQuote(built.request);
  const choices = useMemo(() => (quote ? tierChoices(quote) : []), [quote]);

  // Follow the recommendation until the user picks a row; keep a value the form already had.
  const userChose = useRef(value !== undefined);
  const selectedKey = value ? choiceKey(value) : undefined;
  useEffect(() => {
    if (!quote) return;
    const current = choices.find(c => c.key === selectedKey);
    if (!userChose.current && quote.recommended) {
      const next = valueOf(quote.recommended);
      if (!sameValue(value, next)) onChange(next);
    } else if (current?.option && current.option.verdict !== 'forbidden') {
      // Same tier and pool, but the inputs may have moved it to another slice (e.g. 2 x H100 instead of 1).
      const next = valueOf(current.option);
      if (!sameValue(value, next)) onChange(next);
    }
  }, [quote, choices, selectedKey, value, onChange]);

  const select = (choice: TierChoice) => {
    if (!choice.option || choice.option.verdict === 'forbidden') return;
    userChose.current = true;
    onChange(valueOf(choice.option));
  };

  const selected = choices.find(c => c.key === selectedKey);
  const missingDtype = quote ? unavailableQuotedDtype(quote) : undefined;
  const dtypes = quote ? dtypeSummary(quote) : undefined;
  const problem = value && quote ? problemWith(value, quote) : undefined;
  const errors = rawErrors?.filter(Boolean) ?? [];
  const locked = disabled || readonly;

  return (
    <FormControl
      fullWidth
      margin="normal"
      required={required}
      error={errors.length > 0 || !!problem}
    >
      <FormLabel htmlFor={idSchema?.$id}>
        {schema.title ?? 'GPU tier'}
      </FormLabel>
      {schema.description && (
        <Typography variant="body2" color="textSecondary">
          {schema.description}
        </Typography>
      )}

      {built.missing && (
        <Typography variant="body2" data-testid="tier-picker-missing">
          Fill in {built.missing.join(', ')} to see which tiers fit and what
          they cost.
        </Typography>
      )}
      {loading && (
        <LinearProgress
          aria-label="Quoting"
          data-testid="tier-picker-loading"
        />
      )}
      {error && !loading && (
        <WarningPanel
          severity="error"
          title="Could not quote this service"
          message={errorMessage(error, { withStatus: false })}
          defaultExpanded
        />
      )}

      {quote && !error && missingDtype && (
        <WarningPanel
          severity="error"
          title={`No ${missingDtype.dtype} checkpoint of this model`}
          message={missingDtype.reason}
          defaultExpanded
        />
      )}
      {quote && !error && !missingDtype && dtypes && (
        <Typography
          variant="caption"
          color="textSecondary"
          data-testid="tier-picker-dtypes"
        >
          {dtypes}
        </Typography>
      )}
      {quote && !error && !missingDtype && choices.length === 0 && (
        <Typography variant="body2">
          No pool offers a slice for this runtime.
        </Typography>
      )}
      {quote && !error && choices.length > 0 && (
        <Table
          size="small"
          aria-label="GPU tiers"
          style={{ opacity: loading ? 0.6 : 1 }}
        >
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox" />
              <TableCell>Tier and pool</TableCell>
              <TableCell>Memory</TableCell>
              <TableCell align="right">Monthly</TableCell>
              <TableCell align="right">Per 1K tokens</TableCell>
              <TableCell style={{ whiteSpace: 'nowrap' }}>Isolation</TableCell>
              <TableCell>Quota (GPU-eq)</TableCell>
              <TableCell>Policy</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {choices.map(choice => (
              <TierChoiceRow
                key={choice.key}
                choice={choice}
                selected={choice.key === selectedKey}
                disabled={locked}
                onSelect={select}
              />
            ))}
          </TableBody>
        </Table>
      )}

      {quote && !error && !missingDtype && problem && (
        <WarningPanel
          severity="error"
          title="This choice cannot be submitted"
          message={problem}
          defaultExpanded
        />
      )}
      {quote &&
        !error &&
        !problem &&
        selected?.option?.verdict === 'needs-approval' && (
          <WarningPanel
            severity="info"
            title={`${TIER_LABELS[selected.tier]} on ${
              selected.pool
            } needs approval`}
            message={`${selected.option.reasons.join(
              '; ',
            )}. The service is created as pending approval and deployed once a platform approver accepts it; choose an allowed tier to deploy at once.`}
            defaultExpanded
          />
        )}
      {errors.map(message => (
        <FormHelperText key={message}>{message}</FormHelperText>
      ))}
    </FormControl>
  );
}
