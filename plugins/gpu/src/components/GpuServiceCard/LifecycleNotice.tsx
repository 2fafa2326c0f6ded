import Box from '@material-ui/core/Box';
import Typography from '@material-ui/core/Typography';
import { LifecycleState } from './describeLifecycle';

/** The state of a service that does not run (waiting for approval, rejected, being torn down, deleted). */
export function LifecycleNotice(props: { state: LifecycleState }) {
  const { state } = props;
  return (
    <Box mb={2} data-testid={`lifecycle-${state.kind}`} role="status">
      <Typography variant="subtitle1" component="p">
        <strong>{state.headline}</strong>
      </Typography>
      {state.details.map(line => (
        <Typography key={line} variant="body2">
          {line}
        </Typography>
      ))}
      <Typography variant="body2" data-testid="lifecycle-held">
        {state.held}
      </Typography>
    </Box>
  );
}
