import {
  formatUsd,
  ServiceCost,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import Grid from '@material-ui/core/Grid';
import Typography from '@material-ui/core/Typography';
import { formatPercent } from '../common';
import { usePlatform } from '../common/usePlatform';
import { describeAccrual, describeAccrualBasis } from './describeAccrual';
import {
  perMillionFromPerThousand,
  perThousandIsEstimated,
  wholeCostLabel,
} from './describeTokenFigures';
import { Figure } from './Figure';

/** A unit price: six decimals below a cent (`$0.000746`), else cents. */
function formatUnitPrice(micros: UsdMicros): string {
  return formatUsd(micros, { decimals: Math.abs(micros) < 10_000 ? 6 : 4 });
}

function perThousandTokensValue(cost: ServiceCost): string {
  if (cost.costPerThousandTokensMicros === undefined) return '-';
  return perMillionFromPerThousand(cost.costPerThousandTokensMicros);
}

function perThousandTokensCaption(cost: ServiceCost): string {
  if (cost.costPerThousandTokensMicros !== undefined)
    return `allocation in ${cost.window.label} divided by its output tokens: all of the cost on output tokens`;
  if (cost.generatedTokens === 0)
    return `no tokens generated in ${cost.window.label}`;
  return 'needs usage metrics';
}

/**
 * `November 2026` for `2026-11`: the month-to-date and projected figures name the calendar month they cover, so
 * neither reads as the price a month (the billing month of the platform's hours, which the projection's caption gives).
 */
export function monthName(month: string): string {
  const [year, number] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 1, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** What is reserved but not spent (a dry run, a workload not running), above the figures. */
function ReservedNotice(props: { cost: ServiceCost }) {
  const notice = describeAccrual(props.cost);
  if (!notice) return null;
  return (
    <Grid item xs={12} data-testid="accrual-notice">
      <Typography variant="subtitle2">{notice.headline}</Typography>
      <Typography variant="caption" color="textSecondary" component="div">
        {notice.detail}
      </Typography>
    </Grid>
  );
}

/**
 * Cost of the service: month-to-date and projected allocation (what the bill says: held while the workload runs),
 * whole cost per 1M output tokens, idle share and spot saving. Figures that need usage metrics say so instead of showing
 * a number. A dry run spends nothing: it shows what is reserved instead; a workload that does not run says since when
 * its reservation is reserved, not spend.
 */
export function CostFigures(props: { cost: ServiceCost }) {
  const { cost } = props;
  const hoursPerMonth = usePlatform().value?.platform.hoursPerMonth;
  const needsMetrics = 'needs usage metrics';
  if (cost.accrualBasis === 'dry-run') {
    return (
      <Grid container spacing={2}>
        <ReservedNotice cost={cost} />
      </Grid>
    );
  }
  return (
    <Grid container spacing={2}>
      <ReservedNotice cost={cost} />
      <Grid item xs={6} sm={4}>
        <Figure
          testId="figure-month-to-date"
          label={`Cost ${monthName(cost.monthToDate.month)} to date`}
          value={formatUsd(cost.monthToDate.allocationMicros)}
          caption={
            cost.monthToDate.snapshotDays > 0
              ? `${cost.monthToDate.snapshotDays} day(s) from daily snapshots`
              : 'allocation: GPU share x price x hours'
          }
        />
      </Grid>
      <Grid item xs={6} sm={4}>
        <Figure
          testId="figure-projected"
          label={`Projected for ${monthName(cost.monthToDate.month)}`}
          value={formatUsd(cost.projectedMonthMicros)}
          caption={projectionCaption(cost, hoursPerMonth)}
        />
      </Grid>
      {!perThousandIsEstimated(cost) && (
        <Grid item xs={6} sm={4}>
          <Figure
            testId="figure-per-thousand-tokens"
            label={wholeCostLabel('measured')}
            value={perThousandTokensValue(cost)}
            caption={perThousandTokensCaption(cost)}
          />
        </Grid>
      )}
      <Grid item xs={6} sm={4}>
        <Figure
          testId="figure-idle-share"
          label="Idle share"
          value={
            cost.idleShare !== undefined ? formatPercent(cost.idleShare) : '-'
          }
          caption={
            cost.idleMicros !== undefined
              ? `${formatUsd(cost.idleMicros)} of ${formatUsd(
                  cost.allocationMicros,
                )} idle in ${cost.window.label}`
              : needsMetrics
          }
        />
      </Grid>
      <Grid item xs={6} sm={4}>
        <Figure
          testId="figure-window-cost"
          label={`Allocation cost, ${cost.window.label}`}
          value={formatUsd(cost.allocationMicros)}
          caption={`${cost.allocatedHours.toFixed(1)} h at ${formatUnitPrice(
            cost.gpuHourPriceMicros,
          )} per GPU-hour, ${describeAccrualBasis(cost)}`}
        />
      </Grid>
      <Grid item xs={6} sm={4}>
        <Figure
          testId="figure-spot-saving"
          label="Spot saving"
          value={
            cost.spotSavingMicros !== undefined
              ? formatUsd(cost.spotSavingMicros)
              : '-'
          }
          caption={
            cost.spotSavingMicros !== undefined
              ? `vs on-demand, ${cost.window.label}`
              : 'on-demand pool'
          }
        />
      </Grid>
    </Grid>
  );
}

/**
 * The projection runs to the end of the calendar month while monthly prices count the platform's billing month
 * (730 h by default): the caption names both, e.g. `31-day calendar month; $587.50 for a 730 h billing month held`.
 * A service that holds nothing now (decommissioned: its reservations released) adds nothing after today, and the
 * caption says so instead of a price "held" beside the card's "Nothing is held".
 */
export function projectionCaption(
  cost: Pick<ServiceCost, 'monthToDate' | 'monthlyAllocationMicros'>,
  hoursPerMonth: number | undefined,
): string {
  const [year, month] = cost.monthToDate.month.split('-').map(Number);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (cost.monthlyAllocationMicros === 0) {
    return `${days}-day calendar month; nothing is held now, so nothing more is added`;
  }
  const billingMonth =
    hoursPerMonth === undefined
      ? 'a billing month'
      : `a ${hoursPerMonth} h billing month`;
  return `${days}-day calendar month; ${formatUsd(
    cost.monthlyAllocationMicros,
  )} for ${billingMonth} held`;
}
