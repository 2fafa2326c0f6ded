/** Why a request needs an approver. `code` is machine-readable, e.g. `over-quota`. */
export interface ApprovalReason {
  code: string;
  message: string;
}

/** Reason codes the store itself adds when quota or budget do not fit. */
export const OVER_QUOTA = 'over-quota';
/** See {@link OVER_QUOTA}: the monthly cost held (run-rate) and the request's are above the budget. */
export const OVER_BUDGET = 'over-budget';
/**
 * See {@link OVER_QUOTA}: month-to-date spend, plus what the team holds and the request until the end of the
 * calendar month, is above the budget.
 */
export { OVER_BUDGET_THIS_MONTH } from '@gpu-platform/backstage-plugin-gpu-common';
/** Reason code the store adds for a production service on a spot pool (it always waits for an approver). */
export { SPOT_IN_PRODUCTION } from '@gpu-platform/backstage-plugin-gpu-common';
/** Reason code of a request within quota but beyond its pool's free capacity, under the `approval` policy. */
export { OVER_POOL_CAPACITY } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * How the store decides admission of a reservation, inside its transaction:
 *
 * - a request that alone needs more than its pool's physical capacity is refused with an
 *   `InputError` (nothing is written);
 * - with `approvalReasons` (policy findings of the caller, e.g. a tier not allowed in
 *   the environment), or on a spot pool in production (the store's own finding), the request
 *   always waits for approval;
 * - a request that does not fit its pool's free capacity (what every team holds there) follows the
 *   platform's `whenOverPoolCapacity` (see `GovernanceContext`): refused with a `ConflictError`, or waits for approval;
 * - otherwise it is admitted when it fits the team's quota and budget (on run-rate and on
 *   month-to-date spend plus the rest of the month);
 * - when it does not fit, `whenOverQuota` says whether to throw a `ConflictError`
 *   (`reject`, nothing is written) or to record it for approval (`require-approval`).
 */
export interface AdmissionPolicy {
  approvalReasons?: ApprovalReason[];
  whenOverQuota: 'reject' | 'require-approval';
}

/** Amounts of a reservation request, validated and in stored units. */
export interface Amounts {
  gpuUnits: number;
  monthlyCostMicros: number;
}

/** What is known about a team when a reservation asks to be held. */
export interface LedgerSnapshot {
  team: string;
  pool: string;
  /** Undefined when the team has no quota at all. */
  nominalGpuUnits?: number;
  heldGpuUnits: number;
  monthlyBudgetMicros?: number;
  heldMonthlyCostMicros: number;
}
