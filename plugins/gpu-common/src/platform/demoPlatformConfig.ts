import { defaultEnvironments } from './defaultEnvironments';
import { PlatformConfig } from './platformConfigSchema';

/** A fresh object each time, so YAML written from the config has no anchors. */
const gpuTaint = () =>
  ({
    key: 'nvidia.com/gpu',
    value: 'present',
    effect: 'NoSchedule',
  } as const);

/**
 * A demo `gpu` section with the shape of app-config YAML: six AWS-priced pools (on-demand and spot L4, an A100-80GB
 * MIG pool with the all-balanced layout, L4 with MPS x4, T4 with time-slicing x4, H100) and two teams. Copy it into
 * app-config.yaml or pass it to `parsePlatform`.
 *
 * @public
 */
export const demoPlatformConfig = {
  hoursPerMonth: 730,
  kueue: { apiVersion: 'kueue.x-k8s.io/v1beta2', cohort: 'gpu' },
  pools: [
    {
      name: 'l4-ondemand',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 4,
      capacityType: 'on-demand',
      pricePerNodeHour: '0.8048',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'g6.xlarge',
        'karpenter.sh/capacity-type': 'on-demand',
        'gpu.example.com/pool': 'l4-ondemand',
      },
      nodeTaints: [gpuTaint()],
      sharing: { type: 'none' },
    },
    {
      name: 'spot-l4',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 6,
      capacityType: 'spot',
      pricePerNodeHour: '0.37',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'g6.xlarge',
        'karpenter.sh/capacity-type': 'spot',
        'gpu.example.com/pool': 'spot-l4',
      },
      nodeTaints: [
        gpuTaint(),
        { key: 'gpu.example.com/spot', value: 'true', effect: 'NoSchedule' },
      ],
      sharing: { type: 'none' },
    },
    {
      name: 'a100-mig',
      gpuModel: 'A100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      capacityType: 'on-demand',
      pricePerNodeHour: '27.447',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'p4de.24xlarge',
        'nvidia.com/mig.config': 'all-balanced',
        'gpu.example.com/pool': 'a100-mig',
      },
      nodeTaints: [gpuTaint()],
      sharing: {
        type: 'mig',
        layout: { '1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1 },
      },
    },
    {
      name: 'l4-mps',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 2,
      capacityType: 'on-demand',
      pricePerNodeHour: '0.8048',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'g6.xlarge',
        'gpu.example.com/pool': 'l4-mps',
      },
      nodeTaints: [gpuTaint()],
      sharing: { type: 'mps', replicas: 4 },
      renameByDefault: true,
    },
    {
      name: 't4-timeslice',
      gpuModel: 'T4',
      gpusPerNode: 1,
      maxNodes: 2,
      capacityType: 'on-demand',
      pricePerNodeHour: '0.526',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'g4dn.xlarge',
        'gpu.example.com/pool': 't4-timeslice',
      },
      nodeTaints: [gpuTaint()],
      sharing: { type: 'time-slicing', replicas: 4 },
    },
    {
      name: 'h100',
      gpuModel: 'H100-80GB',
      gpusPerNode: 8,
      maxNodes: 1,
      capacityType: 'on-demand',
      pricePerNodeHour: '55.04',
      nodeLabels: {
        'node.kubernetes.io/instance-type': 'p5.48xlarge',
        'gpu.example.com/pool': 'h100',
      },
      nodeTaints: [gpuTaint()],
      sharing: { type: 'none' },
    },
  ],
  // The built-in dev, staging and production policies, spelled out so the YAML copy shows them.
  environments: defaultEnvironments.map(env => ({
    ...env,
    allowedTiers: [...env.allowedTiers],
  })),
  teams: [
    {
      name: 'ml-platform',
      namespaces: ['ml-platform', 'ml-serving'],
      gpuQuota: {
        'l4-ondemand': 4,
        'a100-mig': 4,
        'l4-mps': 1,
        't4-timeslice': 1,
        h100: 8,
      },
      monthlyBudget: '60000',
    },
    {
      name: 'search',
      namespaces: ['search', 'batch'],
      gpuQuota: {
        'l4-ondemand': 2,
        'spot-l4': 6,
        'l4-mps': 1,
        't4-timeslice': 1,
      },
      monthlyBudget: '4000',
    },
  ],
} satisfies PlatformConfig;
