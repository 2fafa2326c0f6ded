import {
  formatUsd,
  GpuServiceView,
  ServiceCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { describeServiceState } from '../common';
import { LifecycleState } from '../GpuServiceCard/describeLifecycle';

/** The status line of the summary: the lifecycle's headline when the service does not run, else its status in words. */
export function describeSummaryStatus(
  service: GpuServiceView,
  lifecycle: LifecycleState | undefined,
): string {
  if (lifecycle) return lifecycle.headline;
  return describeServiceState(service.status, service.mode);
}

/** Month-to-date cost: the figure, and what it means when nothing was spent (or why it is missing). */
export function describeMonthToDate(
  service: GpuServiceView,
  lifecycle: LifecycleState | undefined,
  cost: ServiceCost | Error | undefined,
): { value: string; caption: string } {
  if (lifecycle && !lifecycle.hasCost) {
    return { value: '$0.00', caption: 'nothing held' };
  }
  if (cost instanceof Error || !cost) {
    return {
      value: 'unavailable',
      caption: `Could not load the cost${cost ? `: ${cost.message}` : ''}`,
    };
  }
  const value = formatUsd(cost.monthToDate.allocationMicros);
  if (cost.accrualBasis === 'dry-run') {
    return {
      value,
      caption: `dry run: ${formatUsd(
        cost.monthlyAllocationMicros,
      )} a month reserved, nothing running`,
    };
  }
  return { value, caption: `${service.monthlyCost} a month held` };
}
