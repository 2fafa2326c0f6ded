import Table from '@material-ui/core/Table';
import TableBody from '@material-ui/core/TableBody';
import TableCell from '@material-ui/core/TableCell';
import TableHead from '@material-ui/core/TableHead';
import TableRow from '@material-ui/core/TableRow';
import Typography from '@material-ui/core/Typography';
import { TIER_LABELS } from './describeChoice';
import { TIER_LEGEND, TIER_RULE_OF_THUMB } from './tierLegend';
import { useCaptionStyles } from './useCaptionStyles';

/** The four sharing tiers side by side: isolation, memory, latency under contention and what each is good for. */
export function TierLegend() {
  const classes = useCaptionStyles();
  return (
    <div data-testid="tier-legend">
      <Table size="small" aria-label="What the GPU sharing tiers mean">
        <TableHead>
          <TableRow>
            <TableCell>Tier</TableCell>
            <TableCell>Isolation</TableCell>
            <TableCell>Memory</TableCell>
            <TableCell>Latency under contention</TableCell>
            <TableCell>Good for</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {TIER_LEGEND.map(entry => (
            <TableRow key={entry.tier}>
              <TableCell
                component="th"
                scope="row"
                style={{ whiteSpace: 'nowrap' }}
              >
                {TIER_LABELS[entry.tier]}
              </TableCell>
              <TableCell>{entry.isolation}</TableCell>
              <TableCell>{entry.memory}</TableCell>
              <TableCell>{entry.latency}</TableCell>
              <TableCell>{entry.goodFor}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Typography variant="body2" className={classes.caption}>
        {TIER_RULE_OF_THUMB}
      </Typography>
    </div>
  );
}
