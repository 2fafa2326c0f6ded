import type { Platform } from '../platform/types';
import type { TeamAllowance } from '../quota/teamAllowance';
import type { Placement } from '../service/types';
import { GPU_UNITS_PER_EQUIVALENT } from '../tiers/gpuUnits';
import { slicesFor } from '../tiers/slicesFor';

/**
 * Whether a rollout's surge pod fits the team's quota, and why, in words.
 *
 * @public
 */
export interface SurgeFit {
  fits: boolean;
  reason: string;
}

/**
 * Whether the team's quota holds a zero-downtime rollout's surge pod: one more replica's GPU share on the service's
 * pool, beyond everything the team holds (`reservedGpuUnits`, this service's reservation included once it is held)
 * and `pendingUnits` not held yet (a service being created). Kueue admits the surge pod only within quota (borrowing
 * from the cohort is not counted on), so a surge that does not fit would leave the rollout waiting.
 *
 * @public
 */
export function surgeFit(input: {
  platform: Platform;
  placement: Placement;
  allowance: TeamAllowance;
  reservedGpuUnits: Record<string, number>;
  pendingUnits?: number;
}): SurgeFit {
  const { platform, placement, allowance } = input;
  const slice = slicesFor(platform, placement.pool).find(
    s =>
      s.tier === placement.tier &&
      s.gpusPerReplica === placement.gpusPerReplica &&
      (s.migProfile ?? undefined) === (placement.migProfile ?? undefined),
  );
  const needed = slice?.gpuUnits ?? 0;
  const free =
    (allowance.gpuUnits[placement.pool] ?? 0) -
    (input.reservedGpuUnits[placement.pool] ?? 0) -
    (input.pendingUnits ?? 0);
  const fits = slice !== undefined && free >= needed;
  const gpus = (units: number) =>
    Number((Math.max(units, 0) / GPU_UNITS_PER_EQUIVALENT).toFixed(3));
  return {
    fits,
    reason: `a surge pod needs one more replica's share (${gpus(
      needed,
    )} GPU-equivalents) of team ${allowance.team}'s quota on pool ${
      placement.pool
    } during a rollout; ${gpus(free)} ${fits ? 'are' : 'is all that is'} free`,
  };
}

/**
 * What a preview says of a service's rollouts where its environment rolls out without downtime.
 *
 * @public
 */
export function describeRollout(surge: SurgeFit): string {
  return surge.fits
    ? `Rollouts surge: ${surge.reason}`
    : `Rollouts replace pods one at a time (no surge): ${surge.reason}`;
}
