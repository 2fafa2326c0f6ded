import {
  clusterMatches,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ClusterTarget } from './types';

/**
 * Ties the platform's pools and environments to the configured clusters, checked as a whole at start-up: a pool
 * that names no cluster belongs to the only configured one, every pool names a configured cluster when there are
 * several, and every environment can reach at least one cluster that has pools. Returns the platform with each
 * pool's cluster filled in (left absent when no cluster is configured: dry-run).
 *
 * @throws Error naming every inconsistency at once, each with its config key, so the backend refuses to start.
 */
export function resolveFleet(
  platform: Platform,
  clusters: ClusterTarget[],
): Platform {
  const names = clusters.map(c => c.name!).filter(Boolean);
  const known = names.length ? names.join(', ') : 'none';
  const issues: string[] = [];

  const pools = platform.pools.map(pool => {
    if (pool.cluster !== undefined) {
      if (!names.includes(pool.cluster)) {
        issues.push(
          `gpu.pools (pool '${pool.name}').cluster: '${pool.cluster}' is not a configured cluster (gpu.clusters: ${known})`,
        );
      }
      return pool;
    }
    if (names.length > 1) {
      issues.push(
        `gpu.pools (pool '${pool.name}').cluster: several clusters are configured (${known}); each pool must name the one its nodes are in`,
      );
      return pool;
    }
    return names.length === 1 ? { ...pool, cluster: names[0] } : pool;
  });

  const clustersWithPools = new Set(
    pools.map(p => p.cluster).filter((c): c is string => c !== undefined),
  );
  for (const environment of platform.environments) {
    if (!environment.clusters) {
      continue;
    }
    const where = `gpu.environments (environment '${environment.name}').clusters`;
    for (const pattern of environment.clusters) {
      if (!names.some(name => clusterMatches(pattern, name))) {
        issues.push(
          `${where}: '${pattern}' matches no configured cluster (gpu.clusters: ${known})`,
        );
      }
    }
    const allowed = names.filter(name =>
      environment.clusters!.some(pattern => clusterMatches(pattern, name)),
    );
    if (
      allowed.length > 0 &&
      pools.length > 0 &&
      !allowed.some(name => clustersWithPools.has(name))
    ) {
      issues.push(
        `${where}: the environment has no cluster with a pool (it may use ${allowed.join(
          ', ',
        )}; pools are on ${[...clustersWithPools].join(', ') || 'no cluster'})`,
      );
    } else if (allowed.length === 0 && names.length > 0) {
      issues.push(`${where}: the environment has no cluster`);
    }
  }

  if (issues.length > 0) {
    throw new Error(
      `The GPU fleet config is inconsistent; the backend does not start until it is fixed:\n- ${issues.join(
        '\n- ',
      )}`,
    );
  }
  return { ...platform, pools };
}
