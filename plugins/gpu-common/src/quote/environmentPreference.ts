import {
  CapacityType,
  EnvironmentPolicy,
  SHARING_TIERS,
  SharingTier,
} from '../platform/types';

/**
 * Whether an environment serves production traffic: its name starts with `prod`, or it renders a
 * PodDisruptionBudget (which the platform sets for production).
 *
 * @public
 */
export function isProductionEnvironment(
  environment: Pick<EnvironmentPolicy, 'name' | 'podDisruptionBudget'>,
): boolean {
  return environment.podDisruptionBudget || /^prod/i.test(environment.name);
}

/**
 * How well a slice suits an environment, lower is better: outside production every slice is 0; in production an
 * on-demand dedicated or MIG slice is 0, a spot one 1 (may be reclaimed), an MPS or time-sliced one 2 (no
 * hardware isolation).
 *
 * @public
 */
export function environmentPreference(
  production: boolean,
  tier: SharingTier,
  capacityType: CapacityType,
): number {
  if (!production) {
    return 0;
  }
  if (tier !== 'dedicated' && tier !== 'mig') {
    return 2;
  }
  return capacityType === 'spot' ? 1 : 0;
}

/**
 * Position of a tier from strongest (0, dedicated) to weakest isolation (3, time-sliced).
 *
 * @public
 */
export function isolationRank(tier: SharingTier): number {
  return SHARING_TIERS.indexOf(tier);
}
