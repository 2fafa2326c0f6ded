import type {
  KubernetesObject,
  V1Deployment,
  V1ResourceClaimTemplate,
} from '@kubernetes/client-node';
import {
  demoPlatformConfig,
  DYNAMIC_MIG_DEVICE_CLASS,
  DYNAMIC_MIG_RESOURCE,
  parsePlatform,
  Platform,
  PlatformConfig,
  ServiceRequest,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DYNAMIC_MIG_DEVICE_CLASS_MAPPING } from './kueue/dynamicMig';
import { poolResources } from './kueue/poolResources';
import { renderDeviceClassMappings } from './kueue/renderDeviceClassMappings';
import { ClusterQueue } from './kueue/types';
import { renderPlatformManifests } from './renderPlatformManifests';
import { renderServiceManifests } from './renderServiceManifests';
import { simulatedResourceSlices } from './simulation/simulatedDra';
import { simulatedGpuNodes } from './simulation/simulatedGpuNodes';
import { DRA_POOLS } from './__testUtils__/draPlatform';
import { fittingPlacement } from './__testUtils__/platforms';

/** An A100-80GB pool whose MIG devices the DRA driver carves on demand. */
const DYNAMIC_POOL: NonNullable<PlatformConfig['pools']>[number] = {
  name: 'a100-mig-dynamic',
  gpuModel: 'A100-80GB',
  gpusPerNode: 1,
  maxNodes: 2,
  pricePerNodeHour: '3.673',
  nodeLabels: { 'gpu.example.com/pool': 'a100-mig-dynamic' },
  nodeTaints: [
    { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
  ],
  sharing: {
    type: 'mig',
    partitioning: 'dynamic',
    layout: { '1g.10gb': 7, '2g.20gb': 3, '3g.40gb': 2 },
  },
  allocation: 'dra',
};

/** The demo platform with the static DRA pools and the dynamic one; ml-platform has `gpus` GPUs of the dynamic. */
function dynamicPlatform(gpus = 1): Platform {
  const config = JSON.parse(JSON.stringify(demoPlatformConfig));
  config.pools.push(
    ...JSON.parse(JSON.stringify([...DRA_POOLS, DYNAMIC_POOL])),
  );
  const team = config.teams.find(
    (t: { name: string }) => t.name === 'ml-platform',
  );
  team.gpuQuota = {
    ...team.gpuQuota,
    'a100-mig-dra': 1,
    'a100-mig-dynamic': gpus,
  };
  return parsePlatform(config);
}

const request: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.2-3b',
  dtype: 'int4',
  runtime: 'vllm',
  maxModelLen: 1024,
  concurrency: 2,
  replicas: 1,
  environment: 'dev',
};

function render(profile: string) {
  const platform = dynamicPlatform();
  const placement = fittingPlacement(
    platform,
    request,
    s => s.pool === 'a100-mig-dynamic' && s.migProfile === profile,
  );
  const slice = slicesFor(platform, 'a100-mig-dynamic').find(
    s => s.migProfile === profile,
  )!;
  return {
    slice,
    objects: renderServiceManifests(platform, request, placement, {
      serviceId: 'svc-dyn',
    }),
  };
}

function ofKind<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
): T {
  const found = objects.filter(o => o.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

function teamQueue(platform: Platform): ClusterQueue {
  return renderPlatformManifests(platform).find(
    o => o.kind === 'ClusterQueue' && o.metadata?.name?.includes('ml-platform'),
  ) as ClusterQueue;
}

function flavorQuota(queue: ClusterQueue, flavor: string) {
  const found = queue.spec.resourceGroups
    .flatMap(g => g.flavors)
    .find(f => f.name === flavor)!;
  return Object.fromEntries(
    found.resources
      .filter(r => r.nominalQuota !== '0')
      .map(r => [r.name, r.nominalQuota]),
  );
}

describe('services on a dynamic MIG pool', () => {
  it.each([
    ['1g.10gb', 720],
    ['3g.40gb', 2160],
  ])(
    'claim one %s of the dynamic MIG class on the pool GPU, weighed its SMs (%i GPU units), with no extended resource',
    (profile, units) => {
      const { slice, objects } = render(profile);
      expect(slice.gpuUnits).toBe(units);
      expect(slice.resourceName).toBe(DYNAMIC_MIG_RESOURCE);
      const template = ofKind<V1ResourceClaimTemplate>(
        objects,
        'ResourceClaimTemplate',
      );
      expect(template.spec.spec.devices?.requests).toEqual([
        {
          name: 'gpu',
          exactly: {
            deviceClassName: DYNAMIC_MIG_DEVICE_CLASS,
            allocationMode: 'ExactCount',
            count: 1,
            selectors: [
              {
                cel: {
                  expression:
                    `device.attributes['gpu.nvidia.com'].profile == '${profile}' && ` +
                    "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-80GB'",
                },
              },
            ],
          },
        },
      ]);
      const pod = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
        .spec!;
      expect(pod.resourceClaims).toEqual([
        { name: 'gpu', resourceClaimTemplateName: 'chat-gpu' },
      ]);
      const container = pod.containers[0];
      expect(container.resources?.claims).toEqual([{ name: 'gpu' }]);
      expect(JSON.stringify(container.resources?.limits ?? {})).not.toMatch(
        /nvidia\.com|gpu\.backstage\.io/,
      );
    },
  );
});

describe('Kueue quota of a dynamic MIG pool', () => {
  it('maps the dynamic MIG class to SMs through the driver counter, beside the static mappings', () => {
    expect(renderDeviceClassMappings(dynamicPlatform())).toEqual([
      { name: 'nvidia.com/gpu', deviceClassNames: ['gpu.nvidia.com'] },
      {
        name: 'gpu.backstage.io/mig-devices',
        deviceClassNames: ['mig.nvidia.com'],
      },
      DYNAMIC_MIG_DEVICE_CLASS_MAPPING,
    ]);
    expect(DYNAMIC_MIG_DEVICE_CLASS_MAPPING).toMatchObject({
      name: DYNAMIC_MIG_RESOURCE,
      deviceClassNames: [DYNAMIC_MIG_DEVICE_CLASS],
      sources: [{ counter: { name: 'multiprocessors' } }],
    });
  });

  it('the pool counts SMs: GPUs x 98 on an A100-80GB', () => {
    const platform = dynamicPlatform();
    const pool = platform.pools.find(p => p.name === 'a100-mig-dynamic')!;
    expect(poolResources(platform, pool)).toEqual([
      { name: DYNAMIC_MIG_RESOURCE, perGpu: 98, memoryGiB: 80 / 98 },
    ]);
  });

  it.each([
    [1, '98'],
    [2, '196'],
    [1.5, '147'],
  ])(
    'gives a team of %d GPUs on the pool its SMs in the mapped resource, and says how',
    (gpus, sms) => {
      const queue = teamQueue(dynamicPlatform(gpus));
      expect(flavorQuota(queue, 'a100-mig-dynamic')).toEqual({
        [DYNAMIC_MIG_RESOURCE]: sms,
        // The static pool beside it keeps its per-device quota.
      });
      expect(flavorQuota(queue, 'a100-mig-dra')).toEqual({
        'gpu.backstage.io/mig-devices': '7',
      });
      expect(
        queue.metadata.annotations?.['gpu.backstage.io/mig-quota'],
      ).toContain(
        `a100-mig-dynamic: ${sms} ${DYNAMIC_MIG_RESOURCE} (${
          gpus * 5040
        } GPU units x 98 SMs per GPU / 5040; dynamic MIG, 1g.10gb weighs 14, 2g.20gb weighs 28, 3g.40gb weighs 42 SMs)`,
      );
    },
  );

  it('keeps host quota above what the SMs can admit', () => {
    const queue = teamQueue(dynamicPlatform());
    const host = queue.spec.resourceGroups.find(g =>
      g.coveredResources.includes('cpu'),
    )!;
    const [cpu, memory] = host.flavors[0].resources;
    // Seven 1g.10gb pods (98 / 14) need 7 x 4 CPUs at most; the pool's share of the host group holds them.
    expect(Number(cpu.nominalQuota)).toBeGreaterThanOrEqual(28);
    expect(
      Number(memory.nominalQuota.replace('Gi', '')),
    ).toBeGreaterThanOrEqual(
      3 * (38 + 16), // the largest rate: 3g.40gb pods' memory per SM, times 98 SMs is more than two of them
    );
  });
});

describe('node configuration of a dynamic MIG pool', () => {
  it('gives the MIG Manager no layout for it: the driver carves its GPUs on demand', () => {
    const objects = renderPlatformManifests(dynamicPlatform());
    const migConfig = objects.find(
      o => o.kind === 'ConfigMap' && o.metadata?.name === 'custom-mig-config',
    ) as KubernetesObject & { data: Record<string, string> };
    const text = JSON.stringify(migConfig.data);
    expect(text).toContain('all-1g.10gb'); // the static DRA pool's layout
    expect(text).not.toMatch(/"3g\.40gb":2|3g\.40gb: 2/);
    const [node] = simulatedGpuNodes(dynamicPlatform()).filter(
      n => n.metadata?.labels?.['gpu.example.com/pool'] === 'a100-mig-dynamic',
    );
    expect(node.metadata?.labels?.['nvidia.com/mig.config']).toBeUndefined();
  });
});

describe('simulated hardware of a dynamic MIG pool', () => {
  it('publishes the driver’s counters and every placement per node instead of a fixed layout', () => {
    const slices = simulatedResourceSlices(dynamicPlatform()) as Array<
      KubernetesObject & {
        spec: {
          nodeName: string;
          sharedCounters?: Array<{ name: string }>;
          devices?: Array<{ name: string }>;
        };
      }
    >;
    const node = slices.filter(
      s => s.spec.nodeName === 'kwok-a100-mig-dynamic-0',
    );
    expect(node[0].spec.sharedCounters?.map(c => c.name)).toEqual([
      'gpu-0-counter-set',
    ]);
    expect(node.flatMap(s => s.spec.devices ?? [])).toHaveLength(19);
    // The static DRA pool beside it keeps its fixed devices.
    const staticNode = slices.filter(
      s => s.spec.nodeName === 'kwok-a100-mig-dra-0',
    );
    expect(staticNode).toHaveLength(1);
    expect(staticNode[0].spec.devices).toHaveLength(7);
  });
});
