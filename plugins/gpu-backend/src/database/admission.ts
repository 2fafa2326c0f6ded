import { ConflictError, InputError } from '@backstage/errors';
import {
  ApprovalOverage,
  budgetFit,
  monthBudgetReason,
  MonthSpend,
  OVER_BUDGET_THIS_MONTH,
  quotaFit,
  scaleUsd,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  capacityConflict,
  capacityOf,
  GovernanceContext,
  readPoolHeld,
} from './governance';
import { withHeld } from './ledger';
import { readMonthSpend, restOfMonthCost } from './monthSpend';
import {
  AdmissionPolicy,
  Amounts,
  ApprovalReason,
  LedgerSnapshot,
  OVER_BUDGET,
  OVER_QUOTA,
  ReservationRecord,
  ReservationRequest,
} from './types';
import {
  checkMicros,
  formatGpuUnits,
  formatMicros,
  fromGpuUnits,
  toGpuUnits,
} from './units';

/** Reasons a reservation does not fit, by gpu-common's quota rule (`quotaFit`, `budgetFit`); empty when it fits. */
export function overQuotaReasons(
  ledger: LedgerSnapshot,
  requested: { gpuUnits: number; monthlyCostMicros: number },
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

/**
 * Applies the caller's policy to what does not fit: throws `ConflictError` when over
 * quota and the policy rejects, else says whether the request waits for approval.
 * `governance` are the store's own findings (spot capacity in production), which, like
 * the policy's reasons, always need an approver; a policy reason with the same message
 * gives way to the store's (coded) one.
 */
export function decide(
  policy: AdmissionPolicy,
  overQuota: ApprovalReason[],
  governance: ApprovalReason[] = [],
): { pending: boolean; reasons: ApprovalReason[] } {
  const own = new Set(governance.map(r => r.message));
  const policyReasons = (policy.approvalReasons ?? []).filter(
    r => !own.has(r.message),
  );
  if (overQuota.length > 0 && policy.whenOverQuota === 'reject') {
    throw new ConflictError(overQuota.map(r => r.message).join('; '));
  }
  const reasons = [...policyReasons, ...governance, ...overQuota];
  return { pending: reasons.length > 0, reasons };
}

/** A reservation weighed against the team's quota and budget and the pool's physical capacity. */
export interface Assessment {
  /** Why it does not fit quota or budget (run-rate and this month); empty when it fits. */
  reasons: ApprovalReason[];
  /** What holding it grants beyond quota and budget, in GPUs and dollars. */
  overage: ApprovalOverage;
  /** Why holding it would exceed the pool's physical capacity (every team's held allocation); undefined when it fits. */
  overCapacity?: string;
}

/**
 * Weighs a reservation of `amounts` on `ledger.pool` for `ledger.team` at `now`: the team's quota and what it holds,
 * its budget on run-rate and on month-to-date spend plus the rest of the month, and what every team holds on the
 * pool against its physical capacity. `excludeReservationId` is the held reservation a change gives back.
 */
export async function assess(
  db: Knex | Knex.Transaction,
  context: GovernanceContext,
  input: {
    ledger: Omit<LedgerSnapshot, 'heldGpuUnits' | 'heldMonthlyCostMicros'>;
    amounts: Amounts;
    migProfile?: string;
    excludeReservationId?: string;
    now: Date;
  },
): Promise<Assessment> {
  const { ledger, amounts, migProfile, excludeReservationId, now } = input;
  const [snapshot, month, poolHeld] = await Promise.all([
    withHeld(db, ledger, excludeReservationId),
    readMonthSpend(db, context, ledger.team, now, excludeReservationId),
    readPoolHeld(db, ledger.pool, excludeReservationId),
  ]);
  const capacity = capacityOf(context, ledger.pool);
  const requestRest = restOfMonthCost(
    context,
    ledger.pool,
    amounts.gpuUnits,
    now,
  );
  const reasons = overQuotaReasons(snapshot, amounts);
  if (snapshot.nominalGpuUnits !== undefined) {
    const message = monthBudgetReason({
      team: `'${ledger.team}'`,
      monthlyBudget: snapshot.monthlyBudgetMicros ?? 0,
      spend: month,
      requestRestOfMonth: requestRest,
    });
    if (message) reasons.push({ code: OVER_BUDGET_THIS_MONTH, message });
  }
  const overage = overageOf({
    snapshot,
    month,
    requestRest,
    amounts,
    capacityGpuEquivalents: capacity.gpuEquivalents,
    poolHeldGpuUnits: poolHeld.units,
    overQuota: reasons.length > 0,
    now,
  });
  return {
    reasons,
    overage,
    overCapacity: capacityConflict(capacity, poolHeld, amounts, migProfile),
  };
}

/** The figures of an {@link Assessment}: what the request takes beyond quota and budget. */
export function overageOf(options: {
  snapshot: LedgerSnapshot;
  month: MonthSpend;
  requestRest: number;
  amounts: Amounts;
  capacityGpuEquivalents: number;
  poolHeldGpuUnits: number;
  overQuota: boolean;
  now: Date;
}): ApprovalOverage {
  const { snapshot, month, requestRest, amounts } = options;
  const quotaUnits = snapshot.nominalGpuUnits ?? 0;
  const overUnits = Math.min(
    amounts.gpuUnits,
    Math.max(0, snapshot.heldGpuUnits + amounts.gpuUnits - quotaUnits),
  );
  const budget = snapshot.monthlyBudgetMicros ?? 0;
  const projected = month.monthToDate + month.heldRestOfMonth + requestRest;
  return {
    computedAt: options.now.toISOString(),
    overQuota: options.overQuota,
    monthlyCostMicros: amounts.monthlyCostMicros,
    pools: [
      {
        pool: snapshot.pool,
        quotaGpuEquivalents: fromGpuUnits(quotaUnits),
        heldGpuEquivalents: fromGpuUnits(snapshot.heldGpuUnits),
        requestedGpuEquivalents: fromGpuUnits(amounts.gpuUnits),
        overGpuEquivalents: fromGpuUnits(overUnits),
        overMonthlyCostMicros:
          overUnits === 0
            ? 0
            : scaleUsd(
                amounts.monthlyCostMicros,
                [overUnits],
                [amounts.gpuUnits],
              ),
        capacityGpuEquivalents: options.capacityGpuEquivalents,
        poolHeldGpuEquivalents: fromGpuUnits(options.poolHeldGpuUnits),
      },
    ],
    budget: {
      monthlyBudgetMicros: budget,
      committedMonthlyCostMicros: snapshot.heldMonthlyCostMicros,
      overMonthlyCostMicros: Math.min(
        amounts.monthlyCostMicros,
        Math.max(
          0,
          snapshot.heldMonthlyCostMicros + amounts.monthlyCostMicros - budget,
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

/** Validates a reservation request and converts it to stored units. */
export function checkReservation(reservation: ReservationRequest): Amounts {
  const gpuUnits = toGpuUnits(
    reservation.gpuEquivalents,
    'reservation.gpuEquivalents',
  );
  if (gpuUnits < 1) {
    throw new InputError(
      `reservation.gpuEquivalents must be greater than zero; got ${reservation.gpuEquivalents}`,
    );
  }
  return {
    gpuUnits,
    monthlyCostMicros: checkMicros(
      reservation.monthlyCostMicros,
      'reservation.monthlyCostMicros',
    ),
  };
}

/** The stored amounts of an existing reservation. */
export function amountsOf(reservation: ReservationRecord): Amounts {
  return {
    gpuUnits: toGpuUnits(reservation.gpuEquivalents, 'reservation'),
    monthlyCostMicros: reservation.monthlyCostMicros,
  };
}

/** Throws `InputError` unless the policy is well-formed. */
export function checkPolicy(policy: AdmissionPolicy): void {
  if (
    policy?.whenOverQuota !== 'reject' &&
    policy?.whenOverQuota !== 'require-approval'
  ) {
    throw new InputError(
      `policy.whenOverQuota must be 'reject' or 'require-approval'; got '${policy?.whenOverQuota}'`,
    );
  }
}
