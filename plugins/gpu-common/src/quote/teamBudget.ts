import { parseUsd, UsdMicros } from '../cost/money';
import { TeamQuota } from '../platform/types';

const cache = new WeakMap<TeamQuota, UsdMicros>();

/**
 * A team's monthly budget in micro-dollars, parsed once per team object.
 *
 * @public
 */
export function teamBudget(team: TeamQuota): UsdMicros {
  let budget = cache.get(team);
  if (budget === undefined) {
    budget = parseUsd(team.monthlyBudget);
    cache.set(team, budget);
  }
  return budget;
}
