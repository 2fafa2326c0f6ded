import Box from '@material-ui/core/Box';
import LinearProgress from '@material-ui/core/LinearProgress';
import Typography from '@material-ui/core/Typography';
import { makeStyles } from '@material-ui/core/styles';

const useStyles = makeStyles(theme => ({
  bar: { height: 8, borderRadius: 4, minWidth: 80 },
  over: { backgroundColor: theme.palette.error.main },
  high: { backgroundColor: theme.palette.warning.main },
}));

/**
 * `used of total` with a bar; the bar turns amber from `warnAt` (0.9 by default) and red above 100%. The label says
 * when the limit is zero or exceeded instead of drawing a meaningless bar.
 */
export function UsageBar(props: {
  used: number;
  total: number;
  label: string;
  warnAt?: number;
}) {
  const classes = useStyles();
  const { used, total, label } = props;
  let fraction = 0;
  if (total > 0) fraction = used / total;
  else if (used > 0) fraction = Infinity;
  let barClass: string | undefined;
  if (fraction > 1) barClass = classes.over;
  else if (fraction >= (props.warnAt ?? 0.9)) barClass = classes.high;
  return (
    <Box>
      <Typography variant="body2">{label}</Typography>
      <LinearProgress
        variant="determinate"
        value={Math.min(100, Number.isFinite(fraction) ? fraction * 100 : 100)}
        classes={{ root: classes.bar, bar: barClass }}
        aria-label={label}
      />
    </Box>
  );
}
