import {
  allowanceFromConfig,
  demoPlatformConfig,
  parsePlatform,
  PlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { platformOnCluster } from './platformOnCluster';
import { renderPlatformObjects } from './renderPlatformObjects';

const single = parsePlatform(demoPlatformConfig);
/** The demo platform with its H100 pool on a cluster of its own: only ml-platform has quota there. */
const fleet = {
  ...single,
  pools: single.pools.map(p => ({
    ...p,
    cluster: p.name === 'h100' ? 'gpu-h100' : 'gpu-main',
  })),
};
const allowances = single.teams.map(allowanceFromConfig);
const operations: PlatformOperations = { nodePools: [], alerts: undefined };

function kinds(
  objects: ReturnType<typeof renderPlatformObjects>,
  kind: string,
) {
  return objects
    .filter(o => o.kind === kind)
    .map(o => `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`)
    .sort();
}

describe('platformOnCluster', () => {
  it('gives a cluster its own pools and Kueue queues only for the teams with quota there', () => {
    const h100 = platformOnCluster(fleet, allowances, operations, 'gpu-h100');
    const objects = renderPlatformObjects(
      h100.platform,
      h100.allowances,
      h100.operations,
    );
    // The H100 pool's flavor (and the flavor every cluster has for pods without a GPU), no other pool's.
    expect(kinds(objects, 'ResourceFlavor')).toContain('/h100');
    expect(
      kinds(objects, 'ResourceFlavor').filter(f =>
        single.pools.some(p => `/${p.name}` === f && p.name !== 'h100'),
      ),
    ).toEqual([]);
    expect(kinds(objects, 'ClusterQueue')).toHaveLength(1);
    expect(kinds(objects, 'ClusterQueue')[0]).toContain('ml-platform');
    expect(
      kinds(objects, 'LocalQueue').every(
        q => q.startsWith('ml-platform/') || q.startsWith('ml-serving/'),
      ),
    ).toBe(true);

    const main = platformOnCluster(fleet, allowances, operations, 'gpu-main');
    const mainObjects = renderPlatformObjects(
      main.platform,
      main.allowances,
      main.operations,
    );
    expect(kinds(mainObjects, 'ResourceFlavor')).not.toContain('/h100');
    expect(kinds(mainObjects, 'ClusterQueue')).toHaveLength(2);
  });

  it('gives a cluster no pool is on no pool and no team, even when every pool is on one other cluster', () => {
    const one = {
      ...single,
      pools: single.pools.map(p => ({ ...p, cluster: 'gpu-main' })),
    };
    for (const platform of [one, fleet]) {
      const manager = platformOnCluster(
        platform,
        allowances,
        operations,
        'batch',
      );
      expect(manager.platform.pools).toEqual([]);
      expect(manager.platform.teams).toEqual([]);
      expect(manager.allowances).toEqual([]);
    }
  });

  it('leaves a single-cluster platform whole', () => {
    const one = {
      ...single,
      pools: single.pools.map(p => ({ ...p, cluster: 'gpu-main' })),
    };
    const here = platformOnCluster(one, allowances, operations, 'gpu-main');
    expect(here.platform).toBe(one);
    expect(renderPlatformObjects(here.platform, here.allowances)).toEqual(
      renderPlatformObjects(one, allowances),
    );
  });
});
