import { parsePlatform, Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { renderPlatformManifests } from '../renderPlatformManifests';
import { migQuotaPlan } from './migQuotaPlan';
import { renderResourceTransformations } from './renderResourceTransformations';
import { ClusterQueue } from './types';

/** The demo platform plus an H100 MIG pool laid out as `layout`, team search with quota on both MIG pools. */
function withH100Mig(
  layout: Record<string, number>,
  migQuota?: 'gpu-units' | 'profile-counts',
): Platform {
  return parsePlatform({
    ...demoPlatformConfig,
    kueue: { ...demoPlatformConfig.kueue, ...(migQuota ? { migQuota } : {}) },
    pools: [
      ...demoPlatformConfig.pools,
      {
        name: 'h100-mig',
        gpuModel: 'H100-80GB',
        gpusPerNode: 8,
        maxNodes: 1,
        pricePerNodeHour: '40',
        nodeLabels: { 'gpu.example.com/pool': 'h100-mig' },
        sharing: { type: 'mig', layout },
      },
    ],
    teams: [
      {
        name: 'search',
        namespaces: ['search'],
        gpuQuota: { 'a100-mig': 1.5, 'h100-mig': 2 },
        monthlyBudget: '1000',
      },
    ],
  });
}

function queueOf(platform: Platform, team = 'search'): ClusterQueue {
  return renderPlatformManifests(platform).find(
    o => o.kind === 'ClusterQueue' && o.metadata?.name === `gpu-${team}`,
  ) as ClusterQueue;
}

function quotas(queue: ClusterQueue): Record<string, Record<string, string>> {
  return Object.fromEntries(
    queue.spec.resourceGroups.flatMap(group =>
      group.flavors.map(flavor => [
        flavor.name,
        Object.fromEntries(flavor.resources.map(r => [r.name, r.nominalQuota])),
      ]),
    ),
  );
}

describe('Kueue MIG quota', () => {
  it('transforms each MIG resource into its weight in GPU units', () => {
    // a100-mig (A100-80GB, 2 x 1g.10gb + 2g.20gb + 3g.40gb): raw 720, 1440, 2520 sum to 5400, x 14/15: 672, 1344, 2352.
    expect(
      renderResourceTransformations(parsePlatform(demoPlatformConfig)),
    ).toEqual([
      {
        input: 'nvidia.com/mig-1g.10gb',
        strategy: 'Replace',
        outputs: { 'gpu.backstage.io/gpu-units': '672' },
      },
      {
        input: 'nvidia.com/mig-2g.20gb',
        strategy: 'Replace',
        outputs: { 'gpu.backstage.io/gpu-units': '1344' },
      },
      {
        input: 'nvidia.com/mig-3g.40gb',
        strategy: 'Replace',
        outputs: { 'gpu.backstage.io/gpu-units': '2352' },
      },
    ]);
  });

  it('gives a MIG pool flavor the allowance units as nominal quota and says so', () => {
    // h100-mig: four 1g.20gb weigh 1260 each, no profile shared with a100-mig.
    const queue = queueOf(withH100Mig({ '1g.20gb': 4 }));
    expect(quotas(queue)).toMatchObject({
      // 1.5 x 5040 = 7560; 2 x 5040 = 10080.
      'a100-mig': { 'gpu.backstage.io/gpu-units': '7560' },
      'h100-mig': { 'gpu.backstage.io/gpu-units': '10080' },
    });
    expect(queue.metadata.annotations?.['gpu.backstage.io/mig-quota']).toBe(
      'a100-mig: 7560 gpu.backstage.io/gpu-units (1g.10gb weighs 672, 2g.20gb weighs 1344, 3g.40gb weighs 2352); ' +
        'h100-mig: 10080 gpu.backstage.io/gpu-units (1g.20gb weighs 1260)',
    );
    // Host resources cover the most pods each profile's quota could admit: a100-mig floor(7560 / 672) = 11,
    // floor(7560 / 1344) = 5, floor(7560 / 2352) = 3; h100-mig floor(10080 / 1260) = 8; 27 pods x 4 cpu.
    expect(quotas(queue)['gpu-host'].cpu).toBe(String(27 * 4));
  });

  it('falls back to counts per profile for pools that weigh a shared profile differently', () => {
    // h100-mig: seven 1g.10gb weigh 720 each; a100-mig weighs its 1g.10gb 672. Neither can be transformed.
    const platform = withH100Mig({ '1g.10gb': 7 });
    expect(renderResourceTransformations(platform)).toEqual([]);
    expect([...migQuotaPlan(platform).countPools.keys()]).toEqual([
      'a100-mig',
      'h100-mig',
    ]);
    const queue = queueOf(platform);
    expect(quotas(queue)).toMatchObject({
      // 7560 / 672 = 11.25, 7560 / 1344 = 5.6, 7560 / 2352 = 3.2; 10080 / 720 = 14.
      'a100-mig': {
        'nvidia.com/mig-1g.10gb': '11',
        'nvidia.com/mig-2g.20gb': '5',
        'nvidia.com/mig-3g.40gb': '3',
      },
      'h100-mig': { 'nvidia.com/mig-1g.10gb': '14' },
    });
    expect(queue.metadata.annotations?.['gpu.backstage.io/mig-quota']).toMatch(
      /^a100-mig: floor\(7560 \/ weight\) per profile .*: nvidia\.com\/mig-1g\.10gb weighs 672 GPU units in pool a100-mig and 720 in pool h100-mig/,
    );
  });

  it('counts per profile everywhere with kueue.migQuota profile-counts', () => {
    const platform = withH100Mig({ '1g.20gb': 4 }, 'profile-counts');
    expect(renderResourceTransformations(platform)).toEqual([]);
    expect(quotas(queueOf(platform))['h100-mig']).toEqual({
      'nvidia.com/mig-1g.20gb': '8',
    });
  });

  it('leaves whole-GPU and shared pools at floor(units x per GPU / 5040)', () => {
    const platform = parsePlatform({
      ...demoPlatformConfig,
      teams: [
        {
          name: 'search',
          namespaces: ['search'],
          // l4-mps has 4 replicas per GPU: 0.6 x 5040 = 3024 units; 3024 x 4 / 5040 = 2.4 -> 2.
          gpuQuota: { 'l4-mps': 0.6, 'l4-ondemand': 1.5 },
          monthlyBudget: '1000',
        },
      ],
    });
    expect(quotas(queueOf(platform))).toMatchObject({
      'l4-ondemand': { 'nvidia.com/gpu': '1' },
      'l4-mps': { 'nvidia.com/gpu.shared': '2' },
    });
  });

  it('takes the stored allowance over app-config', () => {
    const platform = parsePlatform(demoPlatformConfig);
    const queue = renderPlatformManifests(platform, {
      allowances: [
        {
          team: 'search',
          gpuUnits: { 'a100-mig': 2352 },
          monthlyBudgetMicros: 0,
        },
      ],
    }).find(o => o.metadata?.name === 'gpu-search') as ClusterQueue;
    expect(quotas(queue)).toEqual({
      'a100-mig': { 'gpu.backstage.io/gpu-units': '2352' },
      // Pods each profile's quota could admit: 3g.40gb 1, 2g.20gb floor(2352 / 1344) = 1, 1g.10gb floor(2352 / 672) = 3.
      'gpu-host': expect.objectContaining({ cpu: String(5 * 4) }),
    });
  });
});
