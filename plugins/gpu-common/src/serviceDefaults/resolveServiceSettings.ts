import { ServiceDefaults, ServiceSettings } from './types';

/** Environments that roll out with a surge pod unless configured otherwise. */
const ZERO_DOWNTIME_ENVIRONMENTS = ['production', 'staging'];

/** Fields whose value is a map or object merged key by key across levels; every other field is replaced whole. */
const MERGED = ['images', 'modelCache', 'labels', 'annotations'] as const;

function layer(base: ServiceSettings, over: ServiceSettings): ServiceSettings {
  const result: ServiceSettings = { ...base, ...over };
  for (const key of MERGED) {
    if (base[key] && over[key]) {
      (result as Record<string, unknown>)[key] = { ...base[key], ...over[key] };
    }
  }
  if (over.modelCache?.existingClaim) {
    // A shared claim replaces the rendered one; a storage class from a broader level no longer applies.
    result.modelCache = { existingClaim: over.modelCache.existingClaim };
  } else if (over.modelCache?.storageClassName) {
    result.modelCache = { storageClassName: over.modelCache.storageClassName };
  }
  return result;
}

/**
 * The effective settings of a service in `environment` on `pool`: the environment's override over the pool's over
 * the defaults. Images, model cache, labels and annotations merge key by key (a narrower level's key wins; a model
 * cache's shared claim and storage class exclude each other); every other setting is replaced whole. Without a
 * setting at any level, `zeroDowntimeRollouts` is on in production and staging.
 *
 * @public
 */
export function resolveServiceSettings(
  defaults: ServiceDefaults | undefined,
  target: { environment: string; pool?: string },
): ServiceSettings {
  const levels = [
    defaults?.defaults ?? {},
    (target.pool && defaults?.byPool[target.pool]) || {},
    defaults?.byEnvironment[target.environment] ?? {},
  ];
  const settings = levels.reduce(layer, {});
  return {
    ...settings,
    zeroDowntimeRollouts:
      settings.zeroDowntimeRollouts ??
      ZERO_DOWNTIME_ENVIRONMENTS.includes(target.environment),
  };
}
