import {
  demoPlatformConfig,
  parsePlatform,
  Platform,
  PlatformConfig,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Two DRA pools beside the demo platform's device-plugin pools: whole L4s (2 per node) and A100-80GBs cut into seven
 * `1g.10gb` MIG devices, each served through the NVIDIA DRA driver.
 */
export const DRA_POOLS: NonNullable<PlatformConfig['pools']> = [
  {
    name: 'l4-dra',
    gpuModel: 'L4',
    gpusPerNode: 2,
    maxNodes: 2,
    pricePerNodeHour: '1.6096',
    nodeLabels: { 'gpu.example.com/pool': 'l4-dra' },
    nodeTaints: [
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ],
    allocation: 'dra',
  },
  {
    name: 'a100-mig-dra',
    gpuModel: 'A100-80GB',
    gpusPerNode: 1,
    maxNodes: 1,
    pricePerNodeHour: '3.673',
    nodeLabels: {
      'gpu.example.com/pool': 'a100-mig-dra',
      'nvidia.com/mig.config': 'all-1g.10gb',
    },
    nodeTaints: [
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ],
    sharing: { type: 'mig', layout: { '1g.10gb': 7 } },
    allocation: 'dra',
  },
];

/** The demo platform with {@link DRA_POOLS}, and quota on them for ml-platform (2 L4s, 1 A100 of MIG devices). */
export function draPlatform(): Platform {
  const config = JSON.parse(JSON.stringify(demoPlatformConfig));
  config.pools.push(...JSON.parse(JSON.stringify(DRA_POOLS)));
  const team = config.teams.find(
    (t: { name: string }) => t.name === 'ml-platform',
  );
  team.gpuQuota = { ...team.gpuQuota, 'l4-dra': 2, 'a100-mig-dra': 1 };
  return parsePlatform(config);
}
