import {
  formatUsd,
  ServiceWithoutUsage,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';

/**
 * What the overview's usage and idle figures leave out, said beside them: the services whose utilisation is unknown
 * (their allocation is in the totals, not in usage and idle), and the busy time of shared GPUs above the shares the
 * services hold (MPS pods busier than their share), which is in no service's usage and is priced apart.
 */
export function UsageCompletenessNote(props: {
  /** The first of them by name (the overview names at most 20). */
  withoutUsage?: ServiceWithoutUsage[];
  /** How many there are; the named ones when absent. */
  withoutUsageCount?: number;
  aboveShareMicros?: UsdMicros;
  windowLabel: string;
}) {
  const { withoutUsage = [], aboveShareMicros = 0, windowLabel } = props;
  const count = props.withoutUsageCount ?? withoutUsage.length;
  if (count === 0 && aboveShareMicros <= 0) return null;
  const unnamed = count - withoutUsage.length;
  return (
    <>
      {count > 0 && (
        <Typography variant="body2" data-testid="overview-without-usage">
          Usage and idle leave out {count} service(s) whose utilisation is
          unknown in the window ({windowLabel}; their allocation is in the
          totals): {withoutUsage.map(s => s.name).join(', ')}
          {unnamed > 0 ? ` and ${unnamed} more` : ''}.
        </Typography>
      )}
      {aboveShareMicros > 0 && (
        <Typography variant="body2" data-testid="overview-above-share">
          {formatUsd(aboveShareMicros)} of busy time on shared GPUs was above
          the shares the services hold in the window ({windowLabel}): it is in
          no service's usage, priced at each pool's GPU-hour price.
        </Typography>
      )}
    </>
  );
}
