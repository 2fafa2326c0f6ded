import { formatUsd, ServiceCost } from '@gpu-platform/backstage-plugin-gpu-common';
import { formatTime } from '../common';

/** What the card says about a cost that is (partly) reserved rather than spent; absent while the workload runs. */
export interface AccrualNotice {
  headline: string;
  detail: string;
}

/**
 * Says when the allocation is reserved, not spend: a dry run (nothing runs: "Reserved $587.50 a month — dry run,
 * nothing is running"), or a service in apply mode whose workload does not run ("Reserved, not running yet (since
 * 2026-11-20 11:00 UTC)" before it has run this month, "Reserved, not running since ..." after). Nothing for a running
 * workload or a GitOps service (its cost is from the reservation, which the window cost's caption says).
 */
export function describeAccrual(cost: ServiceCost): AccrualNotice | undefined {
  const reserved = `${formatUsd(cost.reservedMicros)} reserved in ${
    cost.window.label
  } (${cost.reservedHours.toFixed(1)} h held)`;
  if (cost.accrualBasis === 'dry-run') {
    return {
      headline: `Reserved ${formatUsd(
        cost.monthlyAllocationMicros,
      )} a month — dry run, nothing is running`,
      detail: `${reserved}: the manifests are not applied, so this is reserved allocation, not spend.`,
    };
  }
  if (
    cost.accrualBasis !== 'cluster-status' ||
    cost.workload?.running !== false
  ) {
    return undefined;
  }
  const since = cost.workload.since
    ? ` (since ${formatTime(cost.workload.since)})`
    : '';
  const ranThisMonth = cost.monthToDate.allocationMicros > 0;
  return {
    headline: ranThisMonth
      ? `Reserved, not running${since}`
      : `Reserved, not running yet${since}`,
    detail: `${reserved}: the cluster reports no available replica, so it is not spend until the workload runs.`,
  };
}

/**
 * The basis of the window's allocation cost, for its caption, with what the window reserved while not running when
 * the workload ran part of it ("while running, as the cluster says; $0.27 reserved while not running").
 */
export function describeAccrualBasis(cost: ServiceCost): string {
  switch (cost.accrualBasis) {
    case 'cluster-status':
      return `while running, as the cluster says${
        cost.reservedMicros > 0
          ? `; ${formatUsd(cost.reservedMicros)} reserved while not running`
          : ''
      }`;
    case 'reservation':
      return 'from the reservation: GitOps, the cluster is not read';
    default:
      return 'dry run: nothing is spent';
  }
}
