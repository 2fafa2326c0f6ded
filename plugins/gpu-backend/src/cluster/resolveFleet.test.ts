import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { resolveFleet } from './resolveFleet';
import { ClusterTarget } from './types';

const dev: ClusterTarget = { name: 'dev', mode: 'dry-run' };
const prodEu: ClusterTarget = { name: 'prod-eu', mode: 'dry-run' };

function platformWith(
  poolClusters: Array<string | undefined>,
  environments?: Array<{ name: string; clusters?: string[] }>,
) {
  const base = parsePlatform(demoPlatformConfig);
  const raw = {
    ...demoPlatformConfig,
    pools: (demoPlatformConfig.pools ?? []).map((pool, index) =>
      poolClusters[index] === undefined
        ? pool
        : { ...pool, cluster: poolClusters[index] },
    ),
    ...(environments && {
      environments: environments.map(e => ({
        ...e,
        allowedTiers: base.environments[0].allowedTiers,
      })),
    }),
  };
  return parsePlatform(raw);
}

describe('resolveFleet', () => {
  it('gives every pool the only configured cluster, so single-cluster configs stay as they were', () => {
    const platform = resolveFleet(platformWith([]), [dev]);
    expect(platform.pools.length).toBeGreaterThan(1);
    expect(platform.pools.every(p => p.cluster === 'dev')).toBe(true);
  });

  it('leaves pools without a cluster when none is configured (dry-run)', () => {
    const platform = resolveFleet(platformWith([]), []);
    expect(platform.pools.every(p => p.cluster === undefined)).toBe(true);
  });

  it('keeps the cluster each pool names', () => {
    const pools = parsePlatform(demoPlatformConfig).pools;
    const clusters = pools.map((_, i) => (i === 0 ? 'prod-eu' : 'dev'));
    const platform = resolveFleet(platformWith(clusters), [dev, prodEu]);
    expect(platform.pools.map(p => p.cluster)).toEqual(clusters);
  });

  it('names every inconsistency at once and refuses', () => {
    const pools = parsePlatform(demoPlatformConfig).pools;
    const clusters = pools.map((_, i): string | undefined =>
      i === 0 ? 'staging' : 'dev',
    );
    clusters[1] = undefined;
    const platform = platformWith(clusters, [
      { name: 'dev', clusters: ['dev'] },
      { name: 'production', clusters: ['prod-*'] },
      { name: 'staging', clusters: ['qa-*'] },
    ]);
    let message = '';
    try {
      resolveFleet(platform, [dev, prodEu]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(
      `gpu.pools (pool '${pools[0].name}').cluster: 'staging' is not a configured cluster (gpu.clusters: dev, prod-eu)`,
    );
    expect(message).toContain(
      `gpu.pools (pool '${pools[1].name}').cluster: several clusters are configured`,
    );
    expect(message).toContain(
      `gpu.environments (environment 'production').clusters: the environment has no cluster with a pool (it may use prod-eu; pools are on`,
    );
    expect(message).toContain(
      `gpu.environments (environment 'staging').clusters: 'qa-*' matches no configured cluster`,
    );
    expect(message).toContain(
      `gpu.environments (environment 'staging').clusters: the environment has no cluster`,
    );
    expect(message).not.toContain(`environment 'dev'`);
  });
});
