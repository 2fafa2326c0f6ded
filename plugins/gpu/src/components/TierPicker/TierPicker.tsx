import { WarningPanel } from '@backstage/core-components';
import Button from '@material-ui/core/Button';
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
import { KeyboardEvent, useRef } from 'react';
import {
  monthConventionText,
  monthlyText,
  TIER_LABELS,
} from './describeChoice';
import { ChoiceDetails } from './ChoiceDetails';
import { RecommendationReason } from './RecommendationReason';
import { errorMessage, usePlatform } from '../common';
import { requestFromForm, ServiceForm } from './requestFromForm';
import {
  ChoiceStanding,
  choiceKey,
  problemWith,
  unavailableQuotedDtype,
} from './tierChoices';
import { TierChoiceRow } from './TierChoiceRow';
import { TierLegend } from './TierLegend';
import { TierPickerProps } from './types';
import { useCaptionStyles } from './useCaptionStyles';
import { useDebouncedQuoteSummary, useQuoteDetail } from './useDebouncedQuote';
import { useTierSelection } from './useTierSelection';

const ARROW_STEPS: Record<string, number> = {
  ArrowDown: 1,
  ArrowRight: 1,
  ArrowUp: -1,
  ArrowLeft: -1,
};

/** What the quota column counts in, said under the table and in the column header's title. */
const GPU_EQUIVALENT_TEXT =
  'A GPU-equivalent is one whole GPU; a MIG slice or shared GPU counts as its share of one.';

/**
 * The `GpuTierPicker` scaffolder field: quotes the service the form describes as the user types, lists every tier
 * and pool with fit, headroom, cost, isolation, quota and policy as a radio group, with a legend of the tiers;
 * follows the recommendation until the user picks a row, keeps the pick (and says when it is not the
 * recommendation) and stores the chosen tier and pool with the review step's words for it. The table reads the
 * quote summary (`POST /quote?detail=summary`, a few KB); the full quote is fetched for the one row shown in detail
 * (the chosen one, else the recommendation), narrowed to it by the request's tier and pool: its policy reasons,
 * token prices and their basis, and what autoscaling is priced at.
 *
 * @public
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
  const { quote, quotedRequest, loading, error } = useDebouncedQuoteSummary(
    built.request,
  );
  const platform = usePlatform();
  const hoursPerMonth = platform.value?.platform.hoursPerMonth;
  // The row shown in detail: the value's (once written, it is the recommendation's while following it), else the
  // recommendation; only a row the model fits has a full option.
  const shown =
    value?.chosenBy === 'recommendation'
      ? quote?.recommended
      : value ?? quote?.recommended;
  const shownFits =
    !!shown &&
    !!quote?.choices.some(c => c.tier === shown.tier && c.pool === shown.pool);
  const detail = useQuoteDetail(
    quotedRequest,
    shown && shownFits
      ? { key: choiceKey(shown), tier: shown.tier, pool: shown.pool }
      : undefined,
  );
  const {
    choices,
    selected,
    differsFromRecommendation,
    select,
    followRecommendation,
  } = useTierSelection({
    value,
    summary: quote,
    platform: platform.value?.platform,
    detail,
    hoursPerMonth,
    onChange,
  });
  const groupRef = useRef<HTMLDivElement>(null);
  const classes = useCaptionStyles();

  const locked = disabled || readonly;
  const selectable = choices.filter(
    c => !locked && c.option && c.option.verdict !== 'forbidden',
  );
  // Arrow keys move the choice to the next or previous row that can be picked, as in a native radio group.
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = ARROW_STEPS[event.key];
    if (!step || selectable.length === 0) return;
    event.preventDefault();
    const at = selectable.findIndex(c => c.key === selected?.key);
    const next =
      selectable[
        at === -1 ? 0 : (at + step + selectable.length) % selectable.length
      ];
    select(next);
    groupRef.current
      ?.querySelector<HTMLInputElement>(`input[value="${next.key}"]`)
      ?.focus();
  };

  const recommended = choices.find(c => c.recommended);
  const missingDtype = quote ? unavailableQuotedDtype(quote) : undefined;
  const detailOf = (key: string | undefined) =>
    detail && detail.key === key ? detail.option : undefined;
  const standing = (): ChoiceStanding | undefined => {
    const key = value && choiceKey(value);
    const row = quote?.choices.find(c => choiceKey(c) === key);
    if (row) {
      return {
        option: { verdict: row.verdict, reasons: detailOf(key)?.reasons },
      };
    }
    const unavailable =
      choices.find(c => c.key === key)?.unavailable ??
      (quote?.unavailable.some(u => choiceKey(u) === key)
        ? { reason: 'the model does not fit its slices' }
        : undefined);
    return unavailable && { unavailable };
  };
  const problem =
    value && quote && platform.value
      ? problemWith(value, missingDtype, standing())
      : undefined;
  const selectedReasons = detailOf(selected?.key)?.reasons;
  const errors = rawErrors?.filter(Boolean) ?? [];
  const labelId = `${idSchema?.$id ?? 'gpu-tier'}-label`;

  return (
    <FormControl
      fullWidth
      margin="normal"
      required={required}
      error={errors.length > 0 || !!problem}
    >
      <FormLabel id={labelId}>{schema.title ?? 'GPU tier'}</FormLabel>
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
      {platform.error && (
        <WarningPanel
          severity="error"
          title="Could not read the GPU platform"
          message={errorMessage(platform.error, { withStatus: false })}
          defaultExpanded
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
      {quote &&
        platform.value &&
        !error &&
        !missingDtype &&
        choices.length === 0 && (
          <Typography variant="body2">
            No pool offers a slice for this runtime.
          </Typography>
        )}
      {quote && !error && choices.length > 0 && (
        <>
          <div
            role="radiogroup"
            // The radios take the focus; the group only hands arrow keys on.
            tabIndex={-1}
            aria-labelledby={labelId}
            aria-required={required}
            ref={groupRef}
            onKeyDown={onKeyDown}
            style={{ overflowX: 'auto' }}
          >
            <Table
              size="small"
              aria-label="GPU tiers"
              style={{ opacity: loading ? 0.6 : 1 }}
            >
              <TableHead>
                <TableRow>
                  <TableCell padding="checkbox" />
                  <TableCell>Tier and pool (per replica)</TableCell>
                  <TableCell>Memory</TableCell>
                  <TableCell align="right">Monthly, all replicas</TableCell>
                  <TableCell align="right">Per 1K output tokens</TableCell>
                  <TableCell style={{ whiteSpace: 'nowrap' }}>
                    Isolation
                  </TableCell>
                  <TableCell title={GPU_EQUIVALENT_TEXT}>
                    Team quota left after this (GPU-equivalents)
                  </TableCell>
                  <TableCell>Policy</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {choices.map(choice => (
                  <TierChoiceRow
                    key={choice.key}
                    choice={choice}
                    name={labelId}
                    selected={choice.key === selected?.key}
                    detail={detailOf(choice.key)}
                    disabled={locked}
                    onSelect={select}
                  />
                ))}
              </TableBody>
            </Table>
          </div>
          <RecommendationReason quote={quote} />
          {(selected ?? recommended) && (
            <ChoiceDetails
              choice={(selected ?? recommended)!}
              detail={detailOf((selected ?? recommended)!.key)}
            />
          )}
          {hoursPerMonth !== undefined && (
            <Typography
              variant="caption"
              className={classes.caption}
              data-testid="tier-picker-month"
            >
              {monthConventionText(hoursPerMonth)} Token prices are estimates
              from memory bandwidth unless marked measured, at full load unless
              you give the expected tokens per second: a GPU used less costs
              more per token.
            </Typography>
          )}
          {/* Said, not only in the quota header's title (hover only, out of reach of the keyboard and of touch). */}
          <Typography
            variant="caption"
            component="div"
            className={classes.caption}
            data-testid="tier-picker-gpu-equivalents"
          >
            {GPU_EQUIVALENT_TEXT} Team quota left is what the team keeps once
            this request holds its share.
          </Typography>
          {/* Below the choices, so the first of them are in view after Next (1280x800). */}
          <TierLegend />
        </>
      )}

      {quote &&
        !error &&
        !problem &&
        differsFromRecommendation &&
        selected?.option &&
        recommended?.option && (
          <div data-testid="tier-picker-not-recommended">
            <WarningPanel
              severity="info"
              title={
                value?.recommendedWhenChosen
                  ? 'Your pick is no longer the recommended tier'
                  : 'Your pick is not the recommended tier'
              }
              defaultExpanded
            >
              <Typography variant="body2">
                {TIER_LABELS[selected.tier]} on {selected.pool} (
                {monthlyText(selected.option)} a month) is kept. For these
                inputs the recommendation is {TIER_LABELS[recommended.tier]} on{' '}
                {recommended.pool} ({monthlyText(recommended.option)} a month).
              </Typography>
              <Button
                size="small"
                variant="outlined"
                color="primary"
                disabled={locked}
                onClick={followRecommendation}
              >
                Use the recommendation
              </Button>
            </WarningPanel>
          </div>
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
            message={`${
              selectedReasons && selectedReasons.length > 0
                ? `${selectedReasons.join('; ')}. `
                : ''
            }The service is created as pending approval and deployed once a platform approver accepts it; choose an allowed tier to deploy at once.`}
            defaultExpanded
          />
        )}
      {errors.map(message => (
        <FormHelperText key={message}>{message}</FormHelperText>
      ))}
    </FormControl>
  );
}
