import { ApprovalReason, OVER_BUDGET, OVER_QUOTA } from './types';
import { formatGpuUnits, formatMicros } from './units';

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
