import { ConflictError, InputError } from '@backstage/errors';
import {
  AdmissionPolicy,
  ApprovalReason,
  OVER_BUDGET,
  OVER_QUOTA,
  ReservationRecord,
  ReservationRequest,
} from './types';
import { checkMicros, formatGpuUnits, formatMicros, toGpuUnits } from './units';

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

/** Reasons a reservation does not fit; empty when it fits. */
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
  const freeUnits = Math.max(0, ledger.nominalGpuUnits - ledger.heldGpuUnits);
  if (requested.gpuUnits > freeUnits) {
    reasons.push({
      code: OVER_QUOTA,
      message:
        `Team '${team}' asks for ${formatGpuUnits(
          requested.gpuUnits,
        )} GPU-equivalents in pool '${pool}' ` +
        `but only ${formatGpuUnits(freeUnits)} of ${formatGpuUnits(
          ledger.nominalGpuUnits,
        )} are free`,
    });
  }
  const budget = ledger.monthlyBudgetMicros ?? 0;
  const freeBudget = Math.max(0, budget - ledger.heldMonthlyCostMicros);
  if (requested.monthlyCostMicros > freeBudget) {
    reasons.push({
      code: OVER_BUDGET,
      message:
        `Team '${team}' asks for ${formatMicros(
          requested.monthlyCostMicros,
        )} a month ` +
        `but only ${formatMicros(freeBudget)} of its ${formatMicros(
          budget,
        )} monthly budget is free`,
    });
  }
  return reasons;
}

/**
 * Applies the caller's policy to what does not fit: throws `ConflictError` when over
 * quota and the policy rejects, else says whether the request waits for approval.
 */
export function decide(
  policy: AdmissionPolicy,
  overQuota: ApprovalReason[],
): { pending: boolean; reasons: ApprovalReason[] } {
  const policyReasons = policy.approvalReasons ?? [];
  if (overQuota.length > 0 && policy.whenOverQuota === 'reject') {
    throw new ConflictError(overQuota.map(r => r.message).join('; '));
  }
  const reasons = [...policyReasons, ...overQuota];
  return { pending: reasons.length > 0, reasons };
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
