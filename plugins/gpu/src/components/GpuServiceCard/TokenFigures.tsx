import { ServiceCost } from '@gpu-platform/backstage-plugin-gpu-common';
import Grid from '@material-ui/core/Grid';
import {
  describeDryRunTokenPrices,
  describeManagedApi,
  describeThroughput,
  describeTokenCosts,
} from './describeTokenFigures';
import { Figure } from './Figure';

/**
 * The service's sustained throughput and its cost per 1M input and output tokens and per request, each labelled
 * measured or estimated with what it rests on, and the comparison with the configured managed API; for a dry run's
 * measured tokens, that it spent nothing to price them. Nothing when the backend has none of them.
 */
export function TokenFigures(props: { cost: ServiceCost }) {
  const dryRun = describeDryRunTokenPrices(props.cost);
  const figures = [
    describeThroughput(props.cost),
    ...(dryRun
      ? [dryRun]
      : [...describeTokenCosts(props.cost), describeManagedApi(props.cost)]),
  ].filter(f => f !== undefined);
  if (figures.length === 0) return null;
  return (
    <Grid container spacing={2} data-testid="token-figures">
      {figures.map(f => (
        <Grid item xs={6} sm={3} key={f.testId}>
          <Figure
            testId={f.testId}
            label={f.label}
            value={f.value}
            caption={f.caption}
          />
        </Grid>
      ))}
    </Grid>
  );
}
