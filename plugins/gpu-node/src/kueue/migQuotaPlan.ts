import {
  DRA_MIG_DEVICES_RESOURCE,
  DYNAMIC_MIG_DEVICE_CLASS,
  DYNAMIC_MIG_RESOURCE,
  findGpuModel,
  NVIDIA_MIG_DEVICE_CLASS,
  poolMigSliceWeights,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The resource a team's ClusterQueue counts MIG quota in when Kueue's resource transformations turn each
 * `nvidia.com/mig-<profile>` request into the slice's weight in GPU units (1/5040 GPU).
 *
 * @public
 */
export const GPU_UNITS_RESOURCE = 'gpu.backstage.io/gpu-units';

/**
 * How the platform's MIG pools are counted in Kueue quota.
 *
 * @public
 */
export interface MigQuotaPlan {
  /** MIG resources Kueue transforms, to their weight in GPU units (one weight per resource name). */
  transformed: Map<string, number>;
  /** Every MIG pool, to its profiles' weights in GPU units (`migSliceWeights`). */
  weights: Map<string, Record<string, number>>;
  /** MIG pools counted per profile, to why (the mode, or the resource two pools weigh differently); the others count in GPU units. */
  countPools: Map<string, string>;
}

/** Prefix of the MIG resources the device plugin advertises (mixed strategy). */
export const MIG_PREFIX = 'nvidia.com/mig-';

function migResource(profile: string): string {
  return `${MIG_PREFIX}${profile}`;
}

/**
 * Which MIG pools count quota in {@link GPU_UNITS_RESOURCE} and with which transformations. Kueue keys
 * transformations by resource name only, so when two MIG pools weigh the same profile differently (another GPU or
 * layout), neither can use a transformation for it: those pools, and any pool sharing a resource with them, fall back
 * to per-profile counts. With `kueue.migQuota: profile-counts` every MIG pool does. A DRA MIG pool is always counted
 * per device, a dynamic one in SMs: Kueue charges their claims through `deviceClassMappings`, not transformations.
 *
 * @public
 */
export function migQuotaPlan(platform: Platform): MigQuotaPlan {
  const migPools = platform.pools.filter(
    (pool): pool is Pool & { sharing: { type: 'mig' } } =>
      pool.sharing.type === 'mig',
  );
  const weights = new Map<string, Record<string, number>>();
  for (const pool of migPools) {
    weights.set(
      pool.name,
      poolMigSliceWeights(findGpuModel(platform, pool.gpuModel), pool.sharing)
        .unitsByProfile,
    );
  }
  const countPools = new Map<string, string>();
  for (const pool of migPools) {
    if (
      pool.allocation.backend === 'dra' &&
      pool.sharing.partitioning === 'dynamic'
    ) {
      countPools.set(
        pool.name,
        `dynamic MIG through DRA: Kueue counts ${DYNAMIC_MIG_RESOURCE}, each device of class ${DYNAMIC_MIG_DEVICE_CLASS} its SMs (deviceClassMappings counter)`,
      );
    } else if (pool.allocation.backend === 'dra') {
      countPools.set(
        pool.name,
        `allocated through DRA: Kueue counts ${DRA_MIG_DEVICES_RESOURCE}, one per MIG device of class ${NVIDIA_MIG_DEVICE_CLASS} (deviceClassMappings)`,
      );
    }
  }
  const devicePluginPools = migPools.filter(
    pool => pool.allocation.backend === 'device-plugin',
  );
  if (platform.kueue.migQuota === 'profile-counts') {
    for (const pool of devicePluginPools) {
      countPools.set(
        pool.name,
        'kueue.migQuota is profile-counts: quota is a count per MIG profile',
      );
    }
  } else {
    const seen = new Map<string, { pool: string; units: number }>();
    for (const pool of devicePluginPools) {
      for (const [profile, units] of Object.entries(weights.get(pool.name)!)) {
        const resource = migResource(profile);
        const first = seen.get(resource);
        if (!first) {
          seen.set(resource, { pool: pool.name, units });
        } else if (first.units !== units) {
          const why =
            `${resource} weighs ${first.units} GPU units in pool ${first.pool} and ${units} in pool ${pool.name}; ` +
            'Kueue transforms a resource one way only, so quota is a count per MIG profile';
          if (!countPools.has(first.pool)) countPools.set(first.pool, why);
          if (!countPools.has(pool.name)) countPools.set(pool.name, why);
        }
      }
    }
    // A resource of a pool counted per profile must stay untransformed, so every pool using it is counted per profile.
    let changed = true;
    while (changed) {
      changed = false;
      const untransformed = new Set(
        devicePluginPools
          .filter(pool => countPools.has(pool.name))
          .flatMap(pool =>
            Object.keys(weights.get(pool.name)!).map(migResource),
          ),
      );
      for (const pool of devicePluginPools) {
        if (countPools.has(pool.name)) continue;
        const shared = Object.keys(weights.get(pool.name)!)
          .map(migResource)
          .find(resource => untransformed.has(resource));
        if (shared) {
          countPools.set(
            pool.name,
            `${shared} is counted per profile in another pool, so quota is a count per MIG profile`,
          );
          changed = true;
        }
      }
    }
  }
  const transformed = new Map<string, number>();
  for (const pool of migPools) {
    if (countPools.has(pool.name)) continue;
    for (const [profile, units] of Object.entries(weights.get(pool.name)!)) {
      transformed.set(migResource(profile), units);
    }
  }
  return { transformed, weights, countPools };
}
