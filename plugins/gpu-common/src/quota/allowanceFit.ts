import { UsdMicros } from '../cost/money';

/**
 * How a request fits a nominal amount with some of it already held. Integers in one unit (GPU units or
 * micro-dollars).
 *
 * @public
 */
export interface AllowanceFit {
  /** What is left before the request: nominal - held, never below 0. */
  free: number;
  /** What is left after the request: nominal - held - requested (negative when over). */
  remaining: number;
  /** Whether the request fits what is free (a request of 0 always does). */
  fits: boolean;
}

/**
 * The one quota rule: a request fits when it is no more than what the nominal amount leaves free after what is held.
 * Used by the quote (`quoteService`) and the store's admission alike.
 *
 * @public
 */
export function quotaFit(
  nominalUnits: number,
  heldUnits: number,
  requestedUnits: number,
): AllowanceFit {
  return fit(nominalUnits, heldUnits, requestedUnits);
}

/**
 * The budget counterpart of {@link quotaFit}, in micro-dollars a month: the budget, what the team's held reservations
 * cost a month, and what the request costs a month.
 *
 * @public
 */
export function budgetFit(
  monthlyBudgetMicros: UsdMicros,
  committedMonthlyMicros: UsdMicros,
  requestedMonthlyMicros: UsdMicros,
): AllowanceFit {
  return fit(
    monthlyBudgetMicros,
    committedMonthlyMicros,
    requestedMonthlyMicros,
  );
}

function fit(nominal: number, held: number, requested: number): AllowanceFit {
  const free = Math.max(0, nominal - held);
  return {
    free,
    remaining: nominal - held - requested,
    fits: requested <= free,
  };
}
