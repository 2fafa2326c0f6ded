import Typography from '@material-ui/core/Typography';
import { QuoteOption } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  scalingCostText,
  spotText,
  throughputBasisText,
  TIER_LABELS,
  tokenPricesText,
} from './describeChoice';
import { TierChoice } from './tierChoices';
import { useCaptionStyles } from './useCaptionStyles';

/**
 * What the table's rows leave out to stay one or two lines tall, said once for the chosen row under the table: its
 * token prices in and out and per request, where their throughput comes from and the load it assumes, what an
 * autoscaled service is priced at (its maximum, or its minimum and the burst above it), and what spot capacity means.
 * All but the last are the row's full option (`detail`, fetched for this row); without it, only what spot means.
 */
export function ChoiceDetails(props: {
  choice: TierChoice;
  detail?: QuoteOption;
}) {
  const { choice, detail } = props;
  const classes = useCaptionStyles();
  if (!choice.option) return null;
  const prices = detail && tokenPricesText(detail);
  const basis = detail && throughputBasisText(detail);
  const spot = spotText(detail ?? choice.option);
  const scaling = detail && scalingCostText(detail);
  if (!prices && !basis && !spot && !scaling) return null;
  return (
    <div data-testid="tier-picker-choice-details">
      <Typography variant="caption" className={classes.caption} component="div">
        <strong>
          {TIER_LABELS[choice.tier]} on {choice.pool}:
        </strong>{' '}
        {prices && <span data-testid="tier-choice-token-prices">{prices}</span>}
      </Typography>
      {basis && (
        <Typography
          variant="caption"
          className={classes.caption}
          component="div"
          data-testid="tier-choice-throughput-basis"
        >
          {basis}
        </Typography>
      )}
      {scaling && (
        <Typography
          variant="caption"
          className={classes.caption}
          component="div"
          data-testid="tier-choice-scaling-cost"
        >
          {scaling}
        </Typography>
      )}
      {spot && (
        <Typography
          variant="caption"
          className={classes.caption}
          component="div"
          data-testid="tier-choice-spot-details"
        >
          {spot}
        </Typography>
      )}
    </div>
  );
}
