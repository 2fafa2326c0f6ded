import Box from '@material-ui/core/Box';
import Typography from '@material-ui/core/Typography';
import { ReactNode } from 'react';

/** One labelled number on the card, with an optional line of context under it. */
export function Figure(props: {
  label: string;
  value: ReactNode;
  caption?: ReactNode;
  testId?: string;
}) {
  return (
    <Box data-testid={props.testId}>
      <Typography variant="caption" color="textSecondary" component="div">
        {props.label}
      </Typography>
      <Typography variant="h6" component="div">
        {props.value}
      </Typography>
      {props.caption && (
        <Typography variant="caption" color="textSecondary" component="div">
          {props.caption}
        </Typography>
      )}
    </Box>
  );
}
