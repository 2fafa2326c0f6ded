import { EnvironmentPolicy, Platform } from './types';

/**
 * Whether a cluster name matches one of an environment's cluster patterns: a name, or a pattern whose `*` stands for
 * any run of characters (`prod-*` matches `prod-eu` and `prod-us`, not `dev-eu`).
 *
 * @public
 */
export function clusterMatches(pattern: string, cluster: string): boolean {
  const parts = pattern
    .split('*')
    .map(p => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(cluster);
}

/**
 * Whether services of the environment may run on the cluster: every cluster when the environment lists none
 * (`gpu.environments[].clusters`), else the clusters matching one of its patterns. A pool that belongs to no named
 * cluster (no cluster is configured) is allowed everywhere.
 *
 * @public
 */
export function environmentAllowsCluster(
  environment: EnvironmentPolicy,
  cluster: string | undefined,
): boolean {
  if (!environment.clusters || cluster === undefined) {
    return true;
  }
  return environment.clusters.some(pattern => clusterMatches(pattern, cluster));
}

/**
 * The cluster of a pool (`Pool.cluster`), undefined when it has none.
 *
 * @public
 */
export function clusterOfPool(
  platform: Platform,
  pool: string,
): string | undefined {
  return platform.pools.find(p => p.name === pool)?.cluster;
}
