import type { KubernetesObject } from '@kubernetes/client-node';
import {
  findGpuModel,
  NVIDIA_DRA_DRIVER,
  NVIDIA_GPU_DEVICE_CLASS,
  NVIDIA_MIG_DEVICE_CLASS,
  Platform,
  Pool,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { createHash } from 'node:crypto';
import { stableName } from '../names/stableName';
import { stableObject } from '../stableObject';
import { GpuProductFact, NVIDIA_GPU_PRODUCT_FACTS } from './nvidiaDeviceFacts';
import { SimulatedGpuNodeOptions } from './simulatedGpuNodes';

/** An attribute of a device in a ResourceSlice (`resource.k8s.io/v1`). */
type DeviceAttribute = { string: string } | { version: string };

/** One device of a ResourceSlice. */
interface SlicedDevice {
  name: string;
  attributes: Record<string, DeviceAttribute>;
  capacity: Record<string, { value: string }>;
}

/**
 * The DeviceClasses the NVIDIA DRA driver's Helm chart (dra-driver-nvidia-gpu v0.4.1,
 * `templates/deviceclass-gpu.yaml` and `deviceclass-mig.yaml`, rendered for `resource.k8s.io/v1`) installs:
 * `gpu.nvidia.com` for whole GPUs, which also backs the extended resource `nvidia.com/gpu`, and `mig.nvidia.com` for
 * MIG devices.
 *
 * @public
 */
export function nvidiaDeviceClasses(): KubernetesObject[] {
  const deviceClass = (name: string, type: string, extra = {}) => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name },
    spec: {
      selectors: [
        {
          cel: {
            expression: `device.driver == '${NVIDIA_DRA_DRIVER}' && device.attributes['${NVIDIA_DRA_DRIVER}'].type == '${type}'`,
          },
        },
      ],
      ...extra,
    },
  });
  return [
    deviceClass(NVIDIA_GPU_DEVICE_CLASS, 'gpu', {
      extendedResourceName: 'nvidia.com/gpu',
    }),
    deviceClass(NVIDIA_MIG_DEVICE_CLASS, 'mig'),
  ];
}

/** A UUID-shaped identifier derived from `seed`, prefixed as NVML prefixes GPU (`GPU-`) and MIG (`MIG-`) UUIDs. */
function deviceUuid(prefix: 'GPU' | 'MIG', seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${prefix}-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(
    12,
    16,
  )}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function bytes(gb: number): string {
  return String(Math.round(gb * 1e9));
}

function productFact(platform: Platform, pool: Pool): GpuProductFact {
  const model = findGpuModel(platform, pool.gpuModel);
  const fact = NVIDIA_GPU_PRODUCT_FACTS[model.productLabel];
  if (!fact) {
    throw new Error(
      `The simulated DRA driver has no facts for ${model.productLabel} (pool ${
        pool.name
      }); known: ${Object.keys(NVIDIA_GPU_PRODUCT_FACTS).join(
        ', ',
      )} (plugins/gpu-node/src/simulation/nvidiaDeviceFacts.ts)`,
    );
  }
  return fact;
}

/** The devices of one node: `gpusPerNode` GPUs, or on a MIG pool the instances of the layout on each GPU. */
function nodeDevices(
  node: string,
  pool: Pool,
  fact: GpuProductFact,
): SlicedDevice[] {
  const common = (): Record<string, DeviceAttribute> => ({
    productName: { string: fact.productName },
    architecture: { string: fact.architecture },
  });
  return Array.from({ length: pool.gpusPerNode }, (_, minor) => {
    const gpuUuid = deviceUuid('GPU', `${node}/${minor}`);
    if (pool.sharing.type !== 'mig') {
      return [
        {
          name: `gpu-${minor}`,
          attributes: {
            type: { string: 'gpu' },
            uuid: { string: gpuUuid },
            ...common(),
          },
          capacity: { memory: { value: bytes(fact.memoryGB) } },
        },
      ];
    }
    let placement = 0;
    return Object.entries(pool.sharing.layout)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .flatMap(([profile, count]) => {
        const migFact = fact.migProfiles.find(p => p.profile === profile);
        if (!migFact) {
          throw new Error(
            `The simulated DRA driver knows no MIG profile ${profile} of ${fact.productName}`,
          );
        }
        return Array.from({ length: count }, () => {
          const start = placement;
          placement += migFact.memorySlices;
          return {
            name: `gpu-${minor}-mig-${profile.replace('.', '')}-${
              migFact.profileId
            }-${start}`,
            attributes: {
              type: { string: 'mig' },
              uuid: { string: deviceUuid('MIG', `${node}/${minor}/${start}`) },
              parentUUID: { string: gpuUuid },
              profile: { string: profile },
              ...common(),
            },
            capacity: {
              memory: { value: bytes(migFact.memoryGB) },
              multiprocessors: { value: String(migFact.multiprocessors) },
            },
          };
        });
      });
  }).flat();
}

/**
 * What the NVIDIA DRA driver's kubelet plugin would publish for the simulated nodes of the platform's DRA pools
 * (named as `simulatedGpuNodes` names them): one ResourceSlice per node, driver `gpu.nvidia.com`, pool named after
 * the node, listing its GPUs (`gpu-<minor>`, attributes `type: gpu`, `uuid`, `productName`, `architecture`, capacity
 * `memory` in bytes) or, on a MIG pool, the MIG devices of the layout on each GPU (named as the driver names them,
 * `gpu-<minor>-mig-<profile>-<profile id>-<placement>`, with `type: mig`, `profile`, `parentUUID`, capacities `memory`
 * and `multiprocessors`). Values come from `NVIDIA_GPU_PRODUCT_FACTS`, not from the platform's GPU catalogue. Nothing
 * for device-plugin pools. Pure and deterministic.
 *
 * @public
 */
export function simulatedResourceSlices(
  platform: Platform,
  options: SimulatedGpuNodeOptions = {},
): KubernetesObject[] {
  const prefix = options.namePrefix ?? 'kwok-';
  return platform.pools
    .filter(pool => pool.allocation.backend === 'dra')
    .flatMap(pool => {
      const fact = productFact(platform, pool);
      return Array.from({ length: pool.maxNodes }, (_, i) => {
        const node = stableName([`${prefix}${pool.name}`, String(i)]);
        return stableObject({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceSlice',
          metadata: { name: stableName([node, 'gpu.nvidia.com']) },
          spec: {
            driver: NVIDIA_DRA_DRIVER,
            nodeName: node,
            pool: { name: node, generation: 1, resourceSliceCount: 1 },
            devices: nodeDevices(node, pool, fact),
          },
        } as KubernetesObject);
      });
    });
}
