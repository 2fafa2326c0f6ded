import type {
  KubernetesObject,
  V1Deployment,
  V1Node,
  V1ResourceClaimTemplate,
} from '@kubernetes/client-node';
import {
  findGpuModel,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderDeviceClassMappings } from './kueue/renderDeviceClassMappings';
import { ClusterQueue } from './kueue/types';
import { renderPlatformManifests } from './renderPlatformManifests';
import { renderServiceManifests } from './renderServiceManifests';
import {
  nvidiaDeviceClasses,
  simulatedResourceSlices,
} from './simulation/simulatedDra';
import { simulatedGpuNodes } from './simulation/simulatedGpuNodes';
import { draPlatform } from './__testUtils__/draPlatform';
import { demoPlatform, fittingPlacement } from './__testUtils__/platforms';

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

function ofKind<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
): T {
  const found = objects.filter(o => o.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

function render(pool: string, gpusPerReplica = 1) {
  const platform = draPlatform();
  const placement = fittingPlacement(
    platform,
    request,
    s => s.pool === pool && s.gpusPerReplica === gpusPerReplica,
  );
  return renderServiceManifests(platform, request, placement, {
    serviceId: 'svc-dra',
  });
}

describe('services on DRA pools', () => {
  it('asks a ResourceClaimTemplate for exactly N whole GPUs of the pool model, and no nvidia.com/gpu', () => {
    const objects = render('l4-dra', 2);
    expect(objects.map(o => o.kind)).toEqual([
      'PersistentVolumeClaim',
      'Service',
      'ResourceClaimTemplate',
      'Deployment',
    ]);
    const template = ofKind<V1ResourceClaimTemplate>(
      objects,
      'ResourceClaimTemplate',
    );
    expect(template.metadata).toMatchObject({
      name: 'chat-gpu',
      namespace: 'ml-platform',
    });
    expect(template.spec.spec.devices?.requests).toEqual([
      {
        name: 'gpu',
        exactly: {
          deviceClassName: 'gpu.nvidia.com',
          allocationMode: 'ExactCount',
          count: 2,
          selectors: [
            {
              cel: {
                expression:
                  "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4'",
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
    const resources = pod.containers[0].resources!;
    expect(resources.claims).toEqual([{ name: 'gpu' }]);
    expect(Object.keys(resources.limits!)).toEqual(['memory']);
    expect(Object.keys(resources.requests!).sort()).toEqual(['cpu', 'memory']);
    expect(pod.nodeSelector).toEqual({ 'gpu.example.com/pool': 'l4-dra' });
    expect(pod.containers[0].args).toEqual(
      expect.arrayContaining(['--tensor-parallel-size', '2']),
    );
  });

  it('asks for one MIG device of the slice profile on the pool GPU', () => {
    const objects = render('a100-mig-dra');
    const template = ofKind<V1ResourceClaimTemplate>(
      objects,
      'ResourceClaimTemplate',
    );
    expect(template.spec.spec.devices?.requests?.[0].exactly).toEqual({
      deviceClassName: 'mig.nvidia.com',
      allocationMode: 'ExactCount',
      count: 1,
      selectors: [
        {
          cel: {
            expression:
              "device.attributes['gpu.nvidia.com'].profile == '1g.10gb' && " +
              "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-80GB'",
          },
        },
      ],
    });
    const container = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!.containers[0];
    expect(JSON.stringify(container.resources)).not.toMatch(/nvidia\.com\/mig/);
  });

  it('renders no claim on a device-plugin pool', () => {
    const objects = render('l4-ondemand');
    expect(objects.some(o => o.kind === 'ResourceClaimTemplate')).toBe(false);
    const container = ofKind<V1Deployment>(objects, 'Deployment').spec!.template
      .spec!.containers[0];
    expect(container.resources?.limits?.['nvidia.com/gpu']).toBe('1');
    expect(container.resources?.claims).toBeUndefined();
  });
});

describe('Kueue quota of DRA pools', () => {
  it('maps gpu.nvidia.com to nvidia.com/gpu and mig.nvidia.com to per-device quota, only for DRA pools', () => {
    expect(renderDeviceClassMappings(draPlatform())).toEqual([
      { name: 'nvidia.com/gpu', deviceClassNames: ['gpu.nvidia.com'] },
      {
        name: 'gpu.backstage.io/mig-devices',
        deviceClassNames: ['mig.nvidia.com'],
      },
    ]);
    expect(renderDeviceClassMappings(demoPlatform())).toEqual([]);
  });

  it('gives the team quota in the mapped names: whole GPUs, and floor(units / weight) MIG devices', () => {
    const objects = renderPlatformManifests(draPlatform());
    const queue = objects.find(
      o =>
        o.kind === 'ClusterQueue' && o.metadata?.name?.includes('ml-platform'),
    ) as ClusterQueue;
    const flavors = queue.spec.resourceGroups.flatMap(g =>
      g.flavors.map(f => ({
        flavor: f.name,
        quota: Object.fromEntries(
          f.resources
            .filter(r => r.nominalQuota !== '0')
            .map(r => [r.name, r.nominalQuota]),
        ),
      })),
    );
    expect(flavors).toEqual(
      expect.arrayContaining([
        { flavor: 'l4-dra', quota: { 'nvidia.com/gpu': '2' } },
        // Seven 1g.10gb per A100 weigh 720 units each; one GPU-equivalent (5040 units) is 7 devices.
        {
          flavor: 'a100-mig-dra',
          quota: { 'gpu.backstage.io/mig-devices': '7' },
        },
      ]),
    );
    expect(queue.metadata.annotations?.['gpu.backstage.io/mig-quota']).toMatch(
      /a100-mig-dra: floor\(5040 \/ weight\) per profile \(1g\.10gb weighs 720\): allocated through DRA/,
    );
  });
});

describe('simulated DRA hardware', () => {
  it('publishes one ResourceSlice per node of a DRA pool with the driver attribute names', () => {
    const platform = draPlatform();
    const slices = simulatedResourceSlices(platform) as Array<
      KubernetesObject & {
        spec: { nodeName: string; driver: string; devices: any[] };
      }
    >;
    expect(slices.map(s => s.spec.nodeName)).toEqual([
      'kwok-l4-dra-0',
      'kwok-l4-dra-1',
      'kwok-a100-mig-dra-0',
    ]);
    const [l4] = slices;
    expect(l4.spec.driver).toBe('gpu.nvidia.com');
    expect(l4.spec.devices.map(d => d.name)).toEqual(['gpu-0', 'gpu-1']);
    expect(l4.spec.devices[0]).toEqual({
      name: 'gpu-0',
      attributes: {
        type: { string: 'gpu' },
        uuid: {
          string: expect.stringMatching(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-/),
        },
        productName: { string: 'NVIDIA L4' },
        architecture: { string: 'Ada Lovelace' },
      },
      capacity: { memory: { value: '24000000000' } },
    });
    const mig = slices[2].spec.devices;
    expect(mig.map(d => d.name)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map(p => `gpu-0-mig-1g10gb-19-${p}`),
    );
    expect(mig[0].attributes).toMatchObject({
      type: { string: 'mig' },
      profile: { string: '1g.10gb' },
      productName: { string: 'NVIDIA A100-SXM4-80GB' },
    });
    expect(new Set(mig.map(d => d.attributes.parentUUID.string)).size).toBe(1);
    expect(new Set(mig.map(d => d.attributes.uuid.string)).size).toBe(7);
    // The catalogue's product names (what claims select on) agree with the independent facts the slices carry.
    for (const pool of platform.pools.filter(
      p => p.allocation.backend === 'dra',
    )) {
      const published = slices.find(s => s.spec.nodeName.includes(pool.name))!
        .spec.devices[0].attributes.productName.string;
      expect(findGpuModel(platform, pool.gpuModel).productName).toBe(published);
    }
    expect(simulatedResourceSlices(demoPlatform())).toEqual([]);
  });

  it('gives DRA pool nodes no GPU extended resource', () => {
    const nodes = simulatedGpuNodes(draPlatform()) as V1Node[];
    const l4 = nodes.find(n => n.metadata?.name === 'kwok-l4-dra-0')!;
    expect(
      Object.keys(l4.status!.allocatable!).filter(r => r.includes('nvidia')),
    ).toEqual([]);
    const plugin = nodes.find(n => n.metadata?.name === 'kwok-l4-ondemand-0')!;
    expect(plugin.status!.allocatable!['nvidia.com/gpu']).toBe('1');
  });

  it('defines the DeviceClasses as the driver chart does', () => {
    expect(nvidiaDeviceClasses()).toEqual([
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'gpu.nvidia.com' },
        spec: {
          selectors: [
            {
              cel: {
                expression:
                  "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
              },
            },
          ],
          extendedResourceName: 'nvidia.com/gpu',
        },
      },
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'DeviceClass',
        metadata: { name: 'mig.nvidia.com' },
        spec: {
          selectors: [
            {
              cel: {
                expression:
                  "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
              },
            },
          ],
        },
      },
    ]);
  });
});
