import {
  Platform,
  PlatformOperations,
  TeamAllowance,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** What the platform reconciler renders for one cluster. */
export interface ClusterPlatform {
  platform: Platform;
  allowances: TeamAllowance[];
  operations: PlatformOperations;
}

/**
 * The part of the platform one cluster holds. When the pools span several clusters: that cluster's pools (their
 * ResourceFlavors, device-plugin configs, NodePools, node labels) and only the teams with quota on one of them, each
 * with its quota there (so a ClusterQueue and LocalQueues exist only where the team can run); a cluster no pool is on
 * (a MultiKueue manager, say) gets no pool and no team. When the pools name no cluster, or only this one, the whole
 * platform, as before clusters were named.
 */
export function platformOnCluster(
  platform: Platform,
  allowances: readonly TeamAllowance[],
  operations: PlatformOperations,
  cluster: string | undefined,
): ClusterPlatform {
  const clusters = new Set(platform.pools.map(p => p.cluster));
  if (
    cluster === undefined ||
    (clusters.size <= 1 && (clusters.has(undefined) || clusters.has(cluster)))
  ) {
    return { platform, allowances: [...allowances], operations };
  }
  const pools = platform.pools.filter(p => p.cluster === cluster);
  const names = new Set(pools.map(p => p.name));
  const onCluster = <T>(quota: Record<string, T>): Record<string, T> =>
    Object.fromEntries(
      Object.entries(quota).filter(([pool]) => names.has(pool)),
    );
  const clusterAllowances = allowances
    .map(a => ({ ...a, gpuUnits: onCluster(a.gpuUnits) }))
    .filter(a => Object.values(a.gpuUnits).some(units => units > 0));
  const teamsHere = new Set(clusterAllowances.map(a => a.team));
  return {
    platform: {
      ...platform,
      pools,
      teams: platform.teams
        .filter(t => teamsHere.has(t.name))
        .map(t => ({ ...t, gpuQuota: onCluster(t.gpuQuota) })),
    },
    allowances: clusterAllowances,
    operations: {
      ...operations,
      nodePools: operations.nodePools.filter(n => names.has(n.pool)),
    },
  };
}
