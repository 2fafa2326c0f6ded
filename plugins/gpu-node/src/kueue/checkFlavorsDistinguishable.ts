import {
  GpuDomainError,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { poolResources } from './poolResources';

function isSubset(
  a: Record<string, string>,
  b: Record<string, string>,
): boolean {
  return Object.entries(a).every(([key, value]) => b[key] === value);
}

/**
 * Pods select their pool by its node labels, and Kueue only assigns a flavor whose node labels match the pod's node
 * selector. When two pools advertise the same resource and one's labels are a subset of the other's, a pod meant
 * for one could be admitted on the other's quota (and land on, say, a time-sliced GPU instead of a dedicated one).
 *
 * @throws GpuDomainError `INVALID_CONFIG` naming the two pools.
 */
export function checkFlavorsDistinguishable(platform: Platform): void {
  const resourcesOf = new Map<Pool, Set<string>>(
    platform.pools.map(pool => [
      pool,
      new Set(poolResources(platform, pool).map(r => r.name)),
    ]),
  );
  platform.pools.forEach((a, i) => {
    for (const b of platform.pools.slice(i + 1)) {
      const shared = [...resourcesOf.get(a)!].filter(r =>
        resourcesOf.get(b)!.has(r),
      );
      if (shared.length === 0) continue;
      if (
        isSubset(a.nodeLabels, b.nodeLabels) ||
        isSubset(b.nodeLabels, a.nodeLabels)
      ) {
        throw new GpuDomainError(
          'INVALID_CONFIG',
          `Pools ${a.name} and ${b.name} both offer ${shared.join(
            ', ',
          )} but the node labels of one include all of ` +
            `the other's, so neither pods nor Kueue can tell them apart; give each pool a label the other lacks ` +
            `(e.g. gpu.example.com/pool: <pool name>)`,
        );
      }
    }
  });
}
