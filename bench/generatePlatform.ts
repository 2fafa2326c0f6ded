import {
  CapacityType,
  defaultEnvironments,
  defaultGpuModels,
  defaultModels,
  Platform,
  Pool,
  PoolSharing,
  TeamQuota,
} from '../plugins/gpu-common/src';
import { Random } from './random';

/** On-demand USD per GPU-hour by GPU model (gpu-facts.md section 7, AWS; A30 and H200 estimated). */
const GPU_HOUR_USD: Record<string, number> = {
  T4: 0.526,
  A10G: 1.006,
  L4: 0.8048,
  L40S: 1.861,
  'A30-24GB': 1.2,
  'A100-40GB': 2.74475,
  'A100-80GB': 3.430875,
  'H100-80GB': 6.88,
  'H100-NVL-94GB': 7.5,
  'H200-141GB': 8.5,
};

/** Sharing variants per GPU model; MIG only where the GPU has it. */
function sharingVariants(gpuModel: string): PoolSharing[] {
  const variants: PoolSharing[] = [
    { type: 'none' },
    { type: 'mps', replicas: 4 },
    { type: 'time-slicing', replicas: 8 },
  ];
  const gpu = defaultGpuModels[gpuModel];
  if (gpu.migProfiles.length > 0) {
    variants.push({
      type: 'mig',
      layout: Object.fromEntries(
        gpu.migProfiles.map(p => [p.name, p.maxInstances]),
      ),
    });
  }
  return variants;
}

/**
 * A platform of `poolCount` pools over the default GPU models (dedicated, MIG, MPS x4 and time-slicing x8 variants,
 * on-demand and spot, 1- and 8-GPU nodes, prices jittered by +-10%), the default environments and models, and 20
 * teams with quotas on a dozen pools each. Pools are large enough (`maxNodes`) for the biggest mix.
 */
export function generatePlatform(random: Random, poolCount: number): Platform {
  const combos: Array<{
    gpuModel: string;
    sharing: PoolSharing;
    capacityType: CapacityType;
  }> = [];
  for (const gpuModel of Object.keys(defaultGpuModels)) {
    for (const sharing of sharingVariants(gpuModel)) {
      for (const capacityType of ['on-demand', 'spot'] as const) {
        combos.push({ gpuModel, sharing, capacityType });
      }
    }
  }
  const pools: Pool[] = [];
  for (let i = 0; pools.length < poolCount; i++) {
    const { gpuModel, sharing, capacityType } = combos[i % combos.length];
    const gpusPerNode =
      gpuModel.startsWith('A100') || gpuModel.startsWith('H')
        ? 8
        : random.pick([1, 4]);
    const jitter = 0.9 + random.next() * 0.2;
    const spotFactor =
      capacityType === 'spot' ? 0.35 + random.next() * 0.15 : 1;
    const perGpu = GPU_HOUR_USD[gpuModel] * jitter * spotFactor;
    pools.push({
      name: `${gpuModel.toLowerCase()}-${
        sharing.type
      }-${capacityType}-${Math.floor(i / combos.length)}`,
      gpuModel,
      gpusPerNode,
      maxNodes: 20_000,
      nodeLabels: { 'gpu.example.com/pool': `pool-${i}` },
      nodeTaints: [
        { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      ],
      capacityType,
      pricePerNodeHour: (perGpu * gpusPerNode).toFixed(4),
      sharing,
      renameByDefault: sharing.type === 'mps',
      allocation: { backend: 'device-plugin', requested: 'device-plugin' },
    });
  }
  const teams: TeamQuota[] = Array.from({ length: 20 }, (_, t) => ({
    name: `team-${t}`,
    namespaces: [`team-${t}`],
    gpuQuota: Object.fromEntries(
      Array.from({ length: 12 }, () => [
        random.pick(pools).name,
        random.int(1, 16),
      ]),
    ),
    monthlyBudget: String(random.int(5, 200) * 1000),
  }));
  return {
    gpuModels: defaultGpuModels,
    pools,
    environments: defaultEnvironments,
    teams,
    models: defaultModels,
    kueue: { apiVersion: 'kueue.x-k8s.io/v1beta2', cohort: 'gpu' },
    hoursPerMonth: 730,
  };
}
