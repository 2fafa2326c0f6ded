import {
  formatUsd,
  Recommendation,
} from '@gpu-platform/backstage-plugin-gpu-common';
import List from '@material-ui/core/List';
import ListItem from '@material-ui/core/ListItem';
import ListItemText from '@material-ui/core/ListItemText';
import Typography from '@material-ui/core/Typography';
import { ReactNode } from 'react';
import { useErrorColorStyles } from '../common';

function savingText(r: Recommendation): string {
  if (r.monthlySavingMicros > 0)
    return `saves ${formatUsd(r.monthlySavingMicros)} per month`;
  if (r.monthlySavingMicros < 0)
    return `costs ${formatUsd(-r.monthlySavingMicros)} more per month`;
  return 'no change in cost';
}

/** Right-size, move-up, idle and scale-to-zero recommendations with their monthly saving, each with its action. */
export function RecommendationList(props: {
  recommendations: Recommendation[];
  /** Whether usage was measured (metrics available or partial): without it, nothing can be said of the fit. */
  measured?: boolean;
  action?: (recommendation: Recommendation) => ReactNode;
}) {
  const errorColor = useErrorColorStyles();
  if (props.recommendations.length === 0) {
    return (
      <Typography
        variant="body2"
        color="textSecondary"
        data-testid="no-recommendation"
      >
        {props.measured === false
          ? 'No recommendation: it needs usage metrics to compare the slice with what the service uses.'
          : 'No recommendation: the slice fits the measured use.'}
      </Typography>
    );
  }
  return (
    <List dense disablePadding data-testid="recommendations">
      {props.recommendations.map(r => (
        <ListItem key={`${r.kind}-${r.target?.pool ?? ''}`} disableGutters>
          <ListItemText
            primary={
              <Typography
                variant="body2"
                {...(r.severity === 'info'
                  ? { color: 'textPrimary' }
                  : { className: errorColor.error })}
              >
                <strong>{r.title}</strong>: {savingText(r)}
              </Typography>
            }
            secondary={r.message}
          />
          {props.action?.(r)}
        </ListItem>
      ))}
    </List>
  );
}
