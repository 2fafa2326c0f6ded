import { ConflictError } from '@backstage/errors';
import {
  ApprovalOverage,
  budgetFit,
  formatGpuUnits,
  gpuEquivalentsOf,
  monthBudgetReason,
  OVER_BUDGET_THIS_MONTH,
  OVER_POOL_CAPACITY,
  PoolCapacityFit,
  poolCapacityFit,
  poolCapacityReason,
  quotaFit,
  scaleUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { capacityOf, GovernanceContext } from './context';
import { formatMicros } from './formatMicros';
import { restOfMonthCost } from './monthSpend';
import { AdmissionSnapshot } from './snapshot';
import {
  AdmissionPolicy,
  Amounts,
  ApprovalReason,
  LedgerSnapshot,
  OVER_BUDGET,
  OVER_QUOTA,
} from './types';

/** Reasons a reservation does not fit, by gpu-common's quota rule (`quotaFit`, `budgetFit`); empty when it fits. */
export function overQuotaReasons(
  ledger: LedgerSnapshot,
  requested: Amounts,
): ApprovalReason[] {
  const { team, pool } = ledger;
  if (ledger.nominalGpuUnits === undefined) {
    return [
      {
        code: OVER_QUOTA,
        message: `Team '${team}' has no GPU quota; ask the platform team to set one`,
      },
    ];
  }
  const reasons: ApprovalReason[] = [];
  const quota = quotaFit(
    ledger.nominalGpuUnits,
    ledger.heldGpuUnits,
    requested.gpuUnits,
  );
  if (!quota.fits) {
    reasons.push({
      code: OVER_QUOTA,
      message:
        `Team '${team}' asks for ${formatGpuUnits(
          requested.gpuUnits,
        )} GPU-equivalents in pool '${pool}' ` +
        `but only ${formatGpuUnits(quota.free)} of ${formatGpuUnits(
          ledger.nominalGpuUnits,
        )} are free`,
    });
  }
  const budget = ledger.monthlyBudgetMicros ?? 0;
  const money = budgetFit(
    budget,
    ledger.heldMonthlyCostMicros,
    requested.monthlyCostMicros,
  );
  if (!money.fits) {
    reasons.push({
      code: OVER_BUDGET,
      message:
        `Team '${team}' asks for ${formatMicros(
          requested.monthlyCostMicros,
        )} a month ` +
        `but only ${formatMicros(money.free)} of its ${formatMicros(
          budget,
        )} monthly budget is free`,
    });
  }
  return reasons;
}

/** A reservation weighed against the team's quota and budget and the pool's physical capacity. */
export interface Assessment {
  /** Why it does not fit quota or budget (run-rate and this month); empty when it fits. */
  reasons: ApprovalReason[];
  /** What holding it grants beyond quota and budget, in GPUs and dollars. */
  overage: ApprovalOverage;
  /** The request against what every team holds on the pool and its physical capacity. */
  capacity: PoolCapacityFit;
}

/**
 * Weighs a reservation of `amounts` (of `migProfile` on a MIG pool) against one {@link AdmissionSnapshot}: the team's
 * quota and what it holds, its budget on run-rate and on month-to-date spend plus the rest of the month, and what
 * every team holds on the pool against its physical capacity. Pure: the quote's rules (`quotaFit`, `budgetFit`,
 * `monthBudgetReason`, `poolCapacityFit`) on the figures the store read under its locks.
 */
export function assess(
  context: GovernanceContext,
  snapshot: AdmissionSnapshot,
  amounts: Amounts,
  migProfile: string | undefined,
): Assessment {
  const { ledger, month, poolHeld, now } = snapshot;
  const capacity = capacityOf(context, ledger.pool);
  const requestRest = restOfMonthCost(
    context.prices,
    ledger.pool,
    gpuEquivalentsOf(amounts.gpuUnits),
    now,
  );
  const reasons = overQuotaReasons(ledger, amounts);
  if (ledger.nominalGpuUnits !== undefined) {
    const message = monthBudgetReason({
      team: `'${ledger.team}'`,
      monthlyBudget: ledger.monthlyBudgetMicros ?? 0,
      spend: month,
      requestRestOfMonth: requestRest,
    });
    if (message) reasons.push({ code: OVER_BUDGET_THIS_MONTH, message });
  }
  const overage = overageOf({
    snapshot,
    requestRest,
    amounts,
    capacityGpuEquivalents: capacity.gpuEquivalents,
    overQuota: reasons.length > 0,
  });
  return {
    reasons,
    overage,
    capacity: poolCapacityFit(capacity, poolHeld, {
      gpuUnits: amounts.gpuUnits,
      migProfile,
    }),
  };
}

/**
 * Applies the policies to what does not fit a new reservation (a create or a change): throws `ConflictError` when over
 * quota and the caller's policy rejects, or when over the pool's free capacity and the platform refuses
 * (`whenOverPoolCapacity: refuse`); else says whether the request waits for approval and why. `governance` are
 * admission's own findings (spot capacity in production), which, like the policy's reasons, always need an approver;
 * a policy reason with the same message gives way to admission's (coded) one.
 */
export function decide(
  context: GovernanceContext,
  policy: AdmissionPolicy,
  assessment: Assessment,
  governance: ApprovalReason[] = [],
): { pending: boolean; reasons: ApprovalReason[] } {
  const overQuota = assessment.reasons;
  if (overQuota.length > 0 && policy.whenOverQuota === 'reject') {
    throw new ConflictError(overQuota.map(r => r.message).join('; '));
  }
  const overCapacity = poolCapacityReason(
    assessment.capacity,
    context.whenOverPoolCapacity,
  );
  // The quote words capacity with the same function: its reason gives way to the one decided here under the lock.
  const own = new Set([
    ...governance.map(r => r.message),
    ...(overCapacity ? [overCapacity] : []),
  ]);
  const policyReasons = (policy.approvalReasons ?? []).filter(
    r => !own.has(r.message),
  );
  if (overCapacity && context.whenOverPoolCapacity === 'refuse') {
    throw new ConflictError(overCapacity);
  }
  const reasons = [
    ...policyReasons,
    ...governance,
    ...(overCapacity
      ? [{ code: OVER_POOL_CAPACITY, message: overCapacity }]
      : []),
    ...overQuota,
  ];
  return { pending: reasons.length > 0, reasons };
}

/**
 * The status reason (words for people; its code is `AwaitingApproval`) of a service waiting for approval to be created:
 * the approval's reasons, or, once none holds (weighed again after a quota or budget was raised), that nothing holds it
 * back but an approver still decides.
 */
export function awaitingApprovalReason(reasons: ApprovalReason[]): string {
  return reasons.length > 0
    ? reasons.map(r => r.message).join('; ')
    : 'Within quota, budget, pool capacity and policy now; waiting for an approver to decide';
}

/**
 * Refuses (`ConflictError`) to approve what would push the pool's held allocation (every team's) over its physical
 * capacity: nothing is granted beyond what the pool physically has, even with `allowOverQuota`.
 */
export function assertApprovalWithinCapacity(capacity: PoolCapacityFit): void {
  if (!capacity.fits) {
    throw new ConflictError(
      `Approving would exceed the physical capacity of pool '${capacity.pool}': ${capacity.shortfall}. Nothing is granted beyond what ` +
        `the pool physically has, even with allowOverQuota; free capacity first, or reject the request`,
    );
  }
}

/** The figures of an {@link Assessment}: what the request takes beyond quota and budget. */
export function overageOf(options: {
  snapshot: AdmissionSnapshot;
  requestRest: number;
  amounts: Amounts;
  capacityGpuEquivalents: number;
  overQuota: boolean;
}): ApprovalOverage {
  const { snapshot, requestRest, amounts } = options;
  const { ledger, month } = snapshot;
  const quotaUnits = ledger.nominalGpuUnits ?? 0;
  const overUnits = Math.min(
    amounts.gpuUnits,
    Math.max(0, ledger.heldGpuUnits + amounts.gpuUnits - quotaUnits),
  );
  const budget = ledger.monthlyBudgetMicros ?? 0;
  const projected = month.monthToDate + month.heldRestOfMonth + requestRest;
  return {
    computedAt: snapshot.now.toISOString(),
    overQuota: options.overQuota,
    monthlyCostMicros: amounts.monthlyCostMicros,
    pools: [
      {
        pool: ledger.pool,
        quotaGpuEquivalents: gpuEquivalentsOf(quotaUnits),
        heldGpuEquivalents: gpuEquivalentsOf(ledger.heldGpuUnits),
        requestedGpuEquivalents: gpuEquivalentsOf(amounts.gpuUnits),
        overGpuEquivalents: gpuEquivalentsOf(overUnits),
        overMonthlyCostMicros:
          overUnits === 0
            ? 0
            : scaleUsd(
                amounts.monthlyCostMicros,
                [overUnits],
                [amounts.gpuUnits],
              ),
        capacityGpuEquivalents: options.capacityGpuEquivalents,
        poolHeldGpuEquivalents: gpuEquivalentsOf(snapshot.poolHeld.units),
      },
    ],
    budget: {
      monthlyBudgetMicros: budget,
      committedMonthlyCostMicros: ledger.heldMonthlyCostMicros,
      overMonthlyCostMicros: Math.min(
        amounts.monthlyCostMicros,
        Math.max(
          0,
          ledger.heldMonthlyCostMicros + amounts.monthlyCostMicros - budget,
        ),
      ),
      month: month.month,
      monthToDateMicros: month.monthToDate,
      projectedMonthMicros: projected,
      overProjectedMicros: Math.min(
        requestRest,
        Math.max(0, projected - budget),
      ),
    },
  };
}
