import { WarningPanel } from '@backstage/core-components';
import FormControl from '@material-ui/core/FormControl';
import FormLabel from '@material-ui/core/FormLabel';
import LinearProgress from '@material-ui/core/LinearProgress';
import Typography from '@material-ui/core/Typography';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { compactQuote } from '@gpu-platform/backstage-plugin-gpu-common';
import { errorMessage, useErrorColorStyles, usePlatform } from '../common';
import {
  headroomText,
  monthConventionText,
  monthlyText,
  perReplicaCostText,
  perThousandTokensText,
  sliceText,
  throughputBasisLabel,
  TIER_LABELS,
} from '../TierPicker/describeChoice';
import { requestFromForm, ServiceForm } from '../TierPicker/requestFromForm';
import { unavailableQuotedDtype } from '../TierPicker/tierChoices';
import { useCaptionStyles } from '../TierPicker/useCaptionStyles';
import { useDebouncedQuote } from '../TierPicker/useDebouncedQuote';

/**
 * The `GpuQuoteSummary` scaffolder field: on the sizing step, quotes the form's inputs as the user types (the same
 * debounced `POST /quote` as the tier picker) and says in a few lines what fits and what the recommendation costs,
 * so a trade-off (precision, context, concurrency, replicas) can be explored without leaving the step. It stores
 * nothing.
 *
 * @public
 */
export function QuoteSummary(props: FieldExtensionComponentProps<unknown>) {
  const { formContext, schema } = props;
  const form = (formContext as { formData?: ServiceForm } | undefined)
    ?.formData;
  const built = requestFromForm(form);
  const { quote, loading, error } = useDebouncedQuote(built.request);
  const platform = usePlatform();
  const hoursPerMonth = platform.value?.platform.hoursPerMonth;
  const classes = useCaptionStyles();
  const errorColor = useErrorColorStyles();

  // A row per tier and pool, as the tier picker lists them.
  const rows = quote ? compactQuote(quote) : undefined;
  const fitting = rows?.choices ?? [];
  const choices = [...fitting, ...(rows?.unavailable ?? [])];
  const recommended = quote?.recommended;
  const missingDtype = quote ? unavailableQuotedDtype(quote) : undefined;

  return (
    <FormControl fullWidth margin="normal" data-testid="quote-summary">
      <FormLabel component="div">{schema.title ?? 'Fit and cost'}</FormLabel>
      {schema.description && (
        <Typography variant="caption" className={classes.caption}>
          {schema.description}
        </Typography>
      )}
      {built.missing && (
        <Typography variant="body2">
          Fill in {built.missing.join(', ')} to see what fits and what it costs.
        </Typography>
      )}
      {loading && <LinearProgress aria-label="Quoting" />}
      {error && !loading && (
        <WarningPanel
          severity="error"
          title="Could not quote this service"
          message={errorMessage(error, { withStatus: false })}
          defaultExpanded
        />
      )}
      {quote && !error && missingDtype && (
        <Typography variant="body2" className={errorColor.error}>
          No {missingDtype.dtype} checkpoint of this model:{' '}
          {missingDtype.reason}
        </Typography>
      )}
      {quote && !error && !missingDtype && (
        <div aria-live="polite" style={{ opacity: loading ? 0.6 : 1 }}>
          <Typography variant="body2" data-testid="quote-summary-fit">
            {fitting.length === 0
              ? `Fits none of the ${choices.length} tiers and pools: a smaller precision, context or concurrency may fit.`
              : `Fits ${fitting.length} of ${choices.length} tiers and pools.`}
          </Typography>
          {recommended && (
            <Typography variant="body2" data-testid="quote-summary-recommended">
              Recommended:{' '}
              <strong>{TIER_LABELS[recommended.slice.tier]}</strong> on{' '}
              {recommended.slice.pool}, {sliceText(recommended)},{' '}
              {headroomText(recommended)}; {monthlyText(recommended)} a month (
              {perReplicaCostText(recommended)}),{' '}
              {perThousandTokensText(recommended)} per 1K output tokens (
              {throughputBasisLabel(recommended)})
              {recommended.verdict === 'needs-approval'
                ? `; needs approval: ${recommended.reasons.join('; ')}`
                : ''}
              .
            </Typography>
          )}
          {hoursPerMonth !== undefined && (
            <Typography variant="caption" className={classes.caption}>
              {monthConventionText(hoursPerMonth)}
            </Typography>
          )}
        </div>
      )}
    </FormControl>
  );
}
