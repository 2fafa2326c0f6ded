import { Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { GPU_UNITS_RESOURCE, migQuotaPlan } from './migQuotaPlan';

/**
 * One entry of `resources.transformations` in Kueue's Configuration (`config.kueue.x-k8s.io/v1beta2`).
 *
 * @public
 */
export interface KueueResourceTransformation {
  input: string;
  strategy: 'Replace';
  outputs: Record<string, string>;
}

/**
 * The resource transformations Kueue needs for the platform's MIG quota: each `nvidia.com/mig-<profile>` a MIG pool
 * counted in GPU units offers is replaced by its weight in {@link GPU_UNITS_RESOURCE} (a `1g.20gb` of an A100-80GB
 * laid out as four of them: 1260), sorted by input. Empty when `kueue.migQuota` is `profile-counts` or no MIG pool
 * uses GPU units. The operator adds them under `resources.transformations` of Kueue's Configuration.
 *
 * @public
 */
export function renderResourceTransformations(
  platform: Platform,
): KueueResourceTransformation[] {
  return [...migQuotaPlan(platform).transformed]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([input, units]) => ({
      input,
      strategy: 'Replace',
      outputs: { [GPU_UNITS_RESOURCE]: String(units) },
    }));
}
