import Typography from '@material-ui/core/Typography';
import {
  spotText,
  throughputBasisText,
  TIER_LABELS,
  tokenPricesText,
} from './describeChoice';
import { TierChoice } from './tierChoices';
import { useCaptionStyles } from './useCaptionStyles';

/**
 * What the table's rows leave out to stay one or two lines tall, said once for the chosen row under the table: its
 * token prices in and out and per request, where their throughput comes from and the load it assumes, and what spot
 * capacity means.
 */
export function ChoiceDetails(props: { choice: TierChoice }) {
  const { choice } = props;
  const classes = useCaptionStyles();
  const option = choice.option;
  if (!option) return null;
  const prices = tokenPricesText(option);
  const basis = throughputBasisText(option);
  const spot = spotText(option);
  if (!prices && !basis && !spot) return null;
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
