import {
  formatUsd,
  GpuServiceView,
  ServiceCost,
} from '@internal/backstage-plugin-gpu-common';
import { LifecycleState } from '../GpuServiceCard/describeLifecycle';

/** The status line of the summary: the lifecycle's headline when the service does not run, else its status. */
export function describeSummaryStatus(
  service: GpuServiceView,
  lifecycle: LifecycleState | undefined,
): string {
  if (lifecycle) return lifecycle.headline;
  return `${service.status}${service.mode === 'dry-run' ? ' (dry-run)' : ''}`;
}

/** Month-to-date cost in words: what was spent, or why nothing was. */
export function describeMonthToDate(
  lifecycle: LifecycleState | undefined,
  cost: ServiceCost | undefined,
): string {
  if (lifecycle && !lifecycle.hasCost) return '$0.00 (nothing held)';
  if (!cost) return 'unavailable';
  const spent = formatUsd(cost.monthToDate.allocationMicros);
  if (cost.accrualBasis === 'dry-run') {
    return `${spent} (dry run: ${formatUsd(
      cost.monthlyAllocationMicros,
    )} a month reserved, nothing running)`;
  }
  return spent;
}
