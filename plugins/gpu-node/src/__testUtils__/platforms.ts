import {
  demoPlatformConfig,
  fitSlices,
  parsePlatform,
  Placement,
  Platform,
  ServiceRequest,
  Slice,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';

/** The demo platform of gpu-common: six pools (dedicated L4 on-demand and spot, A100 MIG, L4 MPS x4, T4 time-slicing x4, H100) and two teams. */
export function demoPlatform(
  apiVersion: Platform['kueue']['apiVersion'] = 'kueue.x-k8s.io/v1beta2',
): Platform {
  return parsePlatform({
    ...demoPlatformConfig,
    kueue: { ...demoPlatformConfig.kueue, apiVersion },
  });
}

/** The shared-T4 chatbots: one T4 box shared by two chatbots, once with time-slicing and once with MPS, 4 replicas each. */
export function seed000Platform(): Platform {
  return parsePlatform({
    pools: [
      {
        name: 't4-timeslice',
        gpuModel: 'T4',
        gpusPerNode: 1,
        maxNodes: 1,
        pricePerNodeHour: 0.526,
        nodeLabels: { 'gpu.example.com/pool': 't4-timeslice' },
        sharing: { type: 'time-slicing', replicas: 4 },
      },
      {
        name: 't4-mps',
        gpuModel: 'T4',
        gpusPerNode: 1,
        maxNodes: 1,
        pricePerNodeHour: 0.526,
        nodeLabels: { 'gpu.example.com/pool': 't4-mps' },
        sharing: { type: 'mps', replicas: 4 },
      },
    ],
    teams: [
      {
        name: 'chatbots',
        gpuQuota: { 't4-timeslice': 1, 't4-mps': 1 },
        monthlyBudget: 500,
      },
    ],
  });
}

/** The L4 serving and OCR batch platform: on-demand L4s for production serving, spot L4s for the batch team's OCR jobs (quota 6). */
export function servingAndOcrBatchPlatform(): Platform {
  return parsePlatform({
    pools: [
      {
        name: 'l4-ondemand',
        gpuModel: 'L4',
        gpusPerNode: 1,
        maxNodes: 4,
        capacityType: 'on-demand',
        pricePerNodeHour: 0.8048,
        nodeLabels: {
          'karpenter.sh/capacity-type': 'on-demand',
          'gpu.example.com/pool': 'l4-ondemand',
        },
        nodeTaints: [
          { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
        ],
      },
      {
        name: 'spot-l4',
        gpuModel: 'L4',
        gpusPerNode: 1,
        maxNodes: 6,
        capacityType: 'spot',
        pricePerNodeHour: 0.37,
        nodeLabels: {
          'karpenter.sh/capacity-type': 'spot',
          'gpu.example.com/pool': 'spot-l4',
        },
        nodeTaints: [
          { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
        ],
      },
    ],
    teams: [
      { name: 'serving', gpuQuota: { 'l4-ondemand': 2 }, monthlyBudget: 2000 },
      {
        name: 'batch',
        namespaces: ['batch'],
        gpuQuota: { 'spot-l4': 6 },
        monthlyBudget: 1500,
      },
    ],
  });
}

/** The report summariser on a dedicated on-demand L4, owned by this platform's `serving` team. */
export const summariserRequest: ServiceRequest = {
  ...summariserOnDedicatedL4,
  team: 'serving',
};

/** The placement of a slice. */
export function placementOf(slice: Slice): Placement {
  return {
    tier: slice.tier,
    pool: slice.pool,
    migProfile: slice.migProfile,
    gpusPerReplica: slice.gpusPerReplica,
  };
}

/** The first slice the request fits (optionally only those matching `where`), as a placement. */
export function fittingPlacement(
  platform: Platform,
  request: ServiceRequest,
  where: (slice: Slice) => boolean = () => true,
): Placement {
  const fit = fitSlices(platform, request).find(r => r.fits && where(r.slice));
  if (!fit) {
    throw new Error(
      `No fitting slice for ${request.name} in this test platform`,
    );
  }
  return placementOf(fit.slice);
}
