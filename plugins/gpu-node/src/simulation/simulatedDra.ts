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
 * and `multiprocessors`). A dynamic MIG pool's nodes publish what the driver does with `DynamicMIG` instead
 * (`simulatedDynamicMigResourceSlices`: counters and every placement). Values come from `NVIDIA_GPU_PRODUCT_FACTS`, not
 * from the platform's GPU catalogue. Nothing for device-plugin pools. Pure and deterministic.
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
        if (
          pool.sharing.type === 'mig' &&
          pool.sharing.partitioning === 'dynamic'
        ) {
          return simulatedDynamicMigResourceSlices({
            node,
            productLabel: findGpuModel(platform, pool.gpuModel).productLabel,
            gpus: pool.gpusPerNode,
          });
        }
        return [
          stableObject({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceSlice',
          metadata: { name: stableName([node, 'gpu.nvidia.com']) },
          spec: {
            driver: NVIDIA_DRA_DRIVER,
            nodeName: node,
            pool: { name: node, generation: 1, resourceSliceCount: 1 },
            devices: nodeDevices(node, pool, fact),
          },
        } as KubernetesObject),
        ];
      }).flat();
    });
}

/** The counters of one GPU's counter set, or what one device consumes of it. */
type Counters = Record<string, { value: string }>;

/** A device of a partitionable pool: what it consumes of its GPU's counter set. */
interface PartitionedDevice extends SlicedDevice {
  consumesCounters: Array<{ counterSet: string; counters: Counters }>;
}

/** Most devices a ResourceSlice may list when they consume counters (`ResourceSliceMaxDevicesWithAdvancedFeatures`). */
const MAX_DEVICES_WITH_COUNTERS = 64;

/**
 * What the NVIDIA DRA driver's kubelet plugin publishes for one node with the `DynamicMIG` feature gate
 * (kubernetes-sigs/dra-driver-nvidia-gpu `cmd/gpu-kubelet-plugin/partitions.go` and `driver.go`, Kubernetes 1.35 and
 * later): the MIG devices are not created in advance, every placement of every profile is announced and the scheduler
 * picks among them through counters (KEP 4815, partitionable devices).
 *
 * - One ResourceSlice with the shared counters only (the API allows `devices` or `sharedCounters` in a slice, not
 *   both): per GPU a counter set `gpu-<minor>-counter-set` with `multiprocessors` and `memory` (the largest profile's,
 *   `PartSharedCounterSets`) and one counter `memory-slice-<i>` per memory slice (`addCountersForMemSlices`).
 * - ResourceSlices of devices: per GPU the whole GPU `gpu-<minor>` (`type: gpu`, `uuid`), consuming every counter of
 *   its set, and per profile and placement a MIG device `gpu-<minor>-mig-<profile>-<profile id>-<placement start>`
 *   (`type: mig`, `profile`, `parentUUID`, no `uuid`: the instance does not exist yet), consuming its SMs, its memory
 *   and its memory slices. At most 64 devices a slice (the limit with counters), whole GPUs per slice.
 *
 * The driver also counts copy engines, decoders, encoders and JPEG/OFA engines; the facts table does not hold them,
 * and the SMs and memory slices are what decide whether two profiles fit one GPU. Values come from
 * `NVIDIA_GPU_PRODUCT_FACTS` (the MIG User Guide's A100 profiles and placements). Pure and deterministic.
 *
 * @public
 */
export function simulatedDynamicMigResourceSlices(options: {
  node: string;
  /** `nvidia.com/gpu.product` of the node's GPUs, a key of `NVIDIA_GPU_PRODUCT_FACTS`. */
  productLabel: string;
  gpus: number;
}): KubernetesObject[] {
  const { node, productLabel, gpus } = options;
  const fact = NVIDIA_GPU_PRODUCT_FACTS[productLabel];
  if (!fact || fact.migProfiles.length === 0) {
    throw new Error(
      `The simulated DRA driver has no MIG facts for ${productLabel} (plugins/gpu-node/src/simulation/nvidiaDeviceFacts.ts)`,
    );
  }
  const profiles = [...fact.migProfiles].sort((a, b) =>
    a.profile < b.profile ? -1 : 1,
  );
  const most = (f: (p: (typeof profiles)[number]) => number) =>
    Math.max(...profiles.map(f));
  const fullMemory = bytes(most(p => p.memoryGB));
  const fullSms = String(most(p => p.multiprocessors));
  const memorySlices = most(p => p.placements.at(-1)! + p.memorySlices);
  const sliceCounters = (start: number, size: number): Counters =>
    Object.fromEntries(
      Array.from({ length: size }, (_, i) => [
        `memory-slice-${start + i}`,
        { value: '1' },
      ]),
    );
  const fullCounters = (): Counters => ({
    multiprocessors: { value: fullSms },
    memory: { value: fullMemory },
    ...sliceCounters(0, memorySlices),
  });
  const counterSet = (minor: number) => `gpu-${minor}-counter-set`;
  const common = (): Record<string, DeviceAttribute> => ({
    productName: { string: fact.productName },
    architecture: { string: fact.architecture },
  });
  const perGpu: PartitionedDevice[][] = Array.from(
    { length: gpus },
    (_, minor) => {
      const gpuUuid = deviceUuid('GPU', `${node}/${minor}`);
      const whole: PartitionedDevice = {
        name: `gpu-${minor}`,
        attributes: {
          type: { string: 'gpu' },
          uuid: { string: gpuUuid },
          ...common(),
        },
        capacity: {
          memory: { value: fullMemory },
          multiprocessors: { value: fullSms },
        },
        consumesCounters: [
          { counterSet: counterSet(minor), counters: fullCounters() },
        ],
      };
      const migs = profiles.flatMap(p =>
        p.placements.map(
          (start): PartitionedDevice => ({
            name: `gpu-${minor}-mig-${p.profile.replace('.', '')}-${
              p.profileId
            }-${start}`,
            attributes: {
              type: { string: 'mig' },
              parentUUID: { string: gpuUuid },
              profile: { string: p.profile },
              ...common(),
            },
            capacity: {
              memory: { value: bytes(p.memoryGB) },
              multiprocessors: { value: String(p.multiprocessors) },
            },
            consumesCounters: [
              {
                counterSet: counterSet(minor),
                counters: {
                  multiprocessors: { value: String(p.multiprocessors) },
                  memory: { value: bytes(p.memoryGB) },
                  ...sliceCounters(start, p.memorySlices),
                },
              },
            ],
          }),
        ),
      );
      return [whole, ...migs];
    },
  );
  const deviceSlices: PartitionedDevice[][] = [];
  for (const devices of perGpu) {
    const last = deviceSlices.at(-1);
    if (last && last.length + devices.length <= MAX_DEVICES_WITH_COUNTERS)
      last.push(...devices);
    else deviceSlices.push([...devices]);
  }
  const count = 1 + deviceSlices.length;
  const slice = (suffix: string, spec: object) =>
    stableObject({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: stableName([node, NVIDIA_DRA_DRIVER, suffix]) },
      spec: {
        driver: NVIDIA_DRA_DRIVER,
        nodeName: node,
        pool: { name: node, generation: 1, resourceSliceCount: count },
        ...spec,
      },
    } as KubernetesObject);
  return [
    slice('counters', {
      sharedCounters: Array.from({ length: gpus }, (_, minor) => ({
        name: counterSet(minor),
        counters: fullCounters(),
      })),
    }),
    ...deviceSlices.map((devices, i) => slice(`devices-${i}`, { devices })),
  ];
}
