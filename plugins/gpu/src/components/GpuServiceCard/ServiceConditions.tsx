import { ServiceCondition } from '@gpu-platform/backstage-plugin-gpu-common';
import Typography from '@material-ui/core/Typography';

/** `True` as a mark a screen reader also reads. */
const MARKS: Record<ServiceCondition['status'], string> = {
  True: 'yes',
  False: 'no',
  Unknown: 'unknown',
};

/**
 * The service's conditions on one line, Kubernetes style: `Reserved: yes · Applied: yes · Available: no
 * (KueuePending)`; the reason codes are what the status above is worded from.
 */
export function ServiceConditions(props: { conditions: ServiceCondition[] }) {
  if (props.conditions.length === 0) return null;
  return (
    <Typography
      variant="caption"
      color="textSecondary"
      component="div"
      data-testid="service-conditions"
    >
      Conditions:{' '}
      {props.conditions
        .map(
          c =>
            `${c.type}: ${MARKS[c.status]}${
              c.status === 'True' && c.reason === c.type ? '' : ` (${c.reason})`
            }`,
        )
        .join(' · ')}
    </Typography>
  );
}
