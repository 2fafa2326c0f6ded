import Chip from '@material-ui/core/Chip';
import Radio from '@material-ui/core/Radio';
import TableCell from '@material-ui/core/TableCell';
import TableRow from '@material-ui/core/TableRow';
import Typography from '@material-ui/core/Typography';
import {
  describeSlice,
  PoolAllocation,
  QuoteOption,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  headroomText,
  ISOLATION_DETAILS,
  ISOLATION_LABELS,
  monthlyText,
  perReplicaCostText,
  perThousandTokensText,
  quotaText,
  sequencesText,
  sliceText,
  spotText,
  tokenPriceBasisText,
  TIER_LABELS,
} from './describeChoice';
import { useErrorColorStyles } from '../common';
import { TierChoice } from './tierChoices';
import { useCaptionStyles, useChoiceRowStyles } from './useCaptionStyles';

const NO_WRAP = { whiteSpace: 'nowrap' } as const;
// Columns of short figures keep a readable width.
const FIGURES = { minWidth: 100 } as const;

const VERDICT_LABELS = {
  allowed: 'Allowed',
  'needs-approval': 'Needs approval',
  forbidden: 'Not allowed',
} as const;

/**
 * How the pool's GPUs reach the pod when it is not the device plugin as configured: through DRA (on a dynamic MIG
 * pool, which profiles the driver carves on demand), or on the device plugin although the pool asked for DRA, and why.
 */
function AllocationNote(props: {
  allocation: PoolAllocation;
  className: string;
}) {
  const { allocation, className } = props;
  if (allocation.backend === 'dra') {
    return (
      <Typography
        variant="caption"
        className={className}
        data-testid="tier-choice-allocation"
      >
        GPUs claimed through Dynamic Resource Allocation
        {allocation.dynamicMig ? `; ${allocation.dynamicMig.message}` : ''}
      </Typography>
    );
  }
  if (!allocation.fallback) return null;
  return (
    <Typography
      variant="caption"
      className={className}
      data-testid="tier-choice-allocation"
    >
      Not through DRA: {allocation.fallback.message}
    </Typography>
  );
}

/**
 * One tier on one pool: what it costs and whether policy lets it through, or why the model does not fit. The figures
 * are the quote summary's; the policy's reasons and what the token price rests on are the row's full option
 * (`detail`), given for the row shown in detail.
 */
export function TierChoiceRow(props: {
  choice: TierChoice;
  detail?: QuoteOption;
  /** The radio group's name: one checked radio, one tab stop. */
  name?: string;
  selected: boolean;
  disabled?: boolean;
  onSelect: (choice: TierChoice) => void;
}) {
  const { choice, detail, name, selected, disabled, onSelect } = props;
  const { option, unavailable } = choice;
  const classes = useCaptionStyles();
  const rowClasses = useChoiceRowStyles();
  const errorColor = useErrorColorStyles();
  const selectable = !!option && option.verdict !== 'forbidden' && !disabled;
  const spot = option ? spotText(option) : undefined;
  const label = `${TIER_LABELS[choice.tier]} on ${choice.pool}${
    spot ? ', spot capacity' : ''
  }${choice.recommended ? ', recommended' : ''}`;

  return (
    <TableRow
      hover={selectable}
      selected={selected}
      classes={{ root: rowClasses.row, selected: rowClasses.selected }}
      data-testid={`tier-choice-${choice.key}`}
      onClick={selectable ? () => onSelect(choice) : undefined}
      style={selectable ? { cursor: 'pointer' } : undefined}
    >
      <TableCell padding="checkbox">
        <Radio
          checked={selected}
          disabled={!selectable}
          color="primary"
          name={name}
          value={choice.key}
          inputProps={{ 'aria-label': label }}
          onChange={() => onSelect(choice)}
        />
      </TableCell>
      <TableCell>
        <Typography variant="body2">
          <strong>{TIER_LABELS[choice.tier]}</strong> · {choice.pool}
          {option?.cluster && (
            <span data-testid="choice-cluster">
              {' '}
              · cluster {option.cluster}
            </span>
          )}
        </Typography>
        <Typography variant="caption" className={classes.caption}>
          {option ? sliceText(option) : describeSlice(unavailable!.slice)}
        </Typography>
        <AllocationNote
          allocation={(option ?? unavailable!).slice.allocation}
          className={classes.caption}
        />
        {(choice.recommended || spot) && (
          <div>
            {choice.recommended && (
              <Chip size="small" color="primary" label="Recommended" />
            )}
            {spot && (
              <Chip
                size="small"
                variant="outlined"
                label="Spot: can be reclaimed"
                data-testid="tier-choice-spot"
              />
            )}
          </div>
        )}
      </TableCell>
      {option ? (
        <>
          <TableCell style={FIGURES}>
            Fits · {headroomText(option)}
            <Typography
              variant="caption"
              className={classes.caption}
              component="div"
              data-testid="tier-choice-sequences"
            >
              {sequencesText(option)}
            </Typography>
          </TableCell>
          <TableCell align="right" style={NO_WRAP}>
            <span data-testid="tier-choice-monthly">{monthlyText(option)}</span>
            <Typography
              variant="caption"
              component="div"
              className={classes.caption}
              data-testid="tier-choice-per-replica"
            >
              {perReplicaCostText(option)}
            </Typography>
          </TableCell>
          <TableCell align="right" style={NO_WRAP}>
            {perThousandTokensText(option)}
            {detail && detail.cost.costPerThousandTokens !== undefined && (
              <Typography
                variant="caption"
                component="div"
                className={classes.caption}
                data-testid="tier-choice-token-basis"
              >
                {tokenPriceBasisText(detail)}
              </Typography>
            )}
          </TableCell>
          <TableCell
            title={ISOLATION_DETAILS[option.slice.isolation]}
            style={NO_WRAP}
          >
            {ISOLATION_LABELS[option.slice.isolation]}
          </TableCell>
          <TableCell style={FIGURES}>{quotaText(option)}</TableCell>
          <TableCell style={FIGURES}>
            <Typography
              variant="body2"
              {...(option.verdict === 'forbidden'
                ? { className: errorColor.error }
                : { color: 'textPrimary' })}
            >
              {VERDICT_LABELS[option.verdict]}
            </Typography>
            {(detail?.reasons ?? []).map(reason => (
              <Typography
                key={reason}
                variant="caption"
                className={classes.caption}
                component="div"
              >
                {reason}
              </Typography>
            ))}
          </TableCell>
        </>
      ) : (
        <TableCell colSpan={6}>
          <Typography variant="body2" className={classes.caption}>
            Does not fit: {unavailable!.reason}
          </Typography>
        </TableCell>
      )}
    </TableRow>
  );
}
