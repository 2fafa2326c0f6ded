import Typography from '@material-ui/core/Typography';
import {
  CompactQuote,
  QuoteRecommendationReason,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { TIER_LABELS } from './describeChoice';
import { useCaptionStyles } from './useCaptionStyles';

const BECAUSE: Record<QuoteRecommendationReason, string> = {
  'only-option': 'it is the only option for these inputs',
  'allowed-by-policy':
    'it is the only option that policy, quota and budget allow without approval',
  'environment-preference':
    'this environment prefers on-demand dedicated or MIG capacity to cheaper options',
  'lowest-price': 'it is the cheapest option allowed without approval',
  'most-free-capacity':
    'it costs as little as the other allowed options, on the pool with the most free capacity',
  'needs-approval':
    'no option is allowed without approval, and this is the best one an approver can grant',
};

/** Why the quote recommends its option, in words chosen by the quote's reason code. */
export function RecommendationReason(props: {
  quote: Pick<CompactQuote, 'recommended' | 'recommendation'>;
}) {
  const { recommended, recommendation } = props.quote;
  const classes = useCaptionStyles();
  if (!recommended || !recommendation) return null;
  return (
    <Typography
      variant="caption"
      className={classes.caption}
      component="div"
      data-testid="tier-picker-recommendation-reason"
    >
      Recommended: {TIER_LABELS[recommended.tier]} on {recommended.pool},
      because {BECAUSE[recommendation.reason]}.
    </Typography>
  );
}
