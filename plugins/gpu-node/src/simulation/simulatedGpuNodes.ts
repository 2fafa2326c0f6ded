import type {
  KubernetesObject,
  V1Node,
  V1Taint,
} from '@kubernetes/client-node';
import {
  findGpuModel,
  isLabelValue,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { DevicePluginSharing } from '../devicePlugin/devicePluginConfig';
import { nodeConfigLabels } from '../devicePlugin/nodeConfigLabels';
import {
  PoolNodeConfig,
  poolNodeConfigs,
} from '../devicePlugin/poolNodeConfigs';
import {
  hostMemoryGiBPerGpuUnit,
  HOST_CPU_PER_GPU_UNIT,
} from '../hostResources';
import { distinctTaints } from '../kueue/distinctTaints';
import { poolResources } from '../kueue/poolResources';
import { stableName } from '../names/stableName';
import { stableObject } from '../stableObject';

/**
 * Options of {@link simulatedGpuNodes}.
 *
 * @public
 */
export interface SimulatedGpuNodeOptions {
  /** Prefix of the node names, `<prefix><pool>-<i>`. Default `kwok-`. */
  namePrefix?: string;
}

/** Annotation kwok manages nodes by (its default `manage-nodes-with-annotation-selector`). */
const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** Host CPU cores of a simulated node, at least; more when the node has more GPU units. */
const MIN_NODE_CPU = 32;
/** Host memory of a simulated node in GiB, at least. */
const MIN_NODE_MEMORY_GIB = 256;
/** Pods per node, at least (the kubelet default). */
const MIN_NODE_PODS = 110;
/** Pods per node above the GPU units, for daemon sets and other non-GPU pods. */
const SPARE_PODS = 16;
const NODE_EPHEMERAL_STORAGE = '500Gi';

function sharingBlock(config: PoolNodeConfig): {
  strategy: 'none' | 'time-slicing' | 'mps';
  block?: DevicePluginSharing;
} {
  const sharing = config.devicePlugin.config.sharing;
  if (sharing?.mps) return { strategy: 'mps', block: sharing.mps };
  if (sharing?.timeSlicing)
    return { strategy: 'time-slicing', block: sharing.timeSlicing };
  return { strategy: 'none' };
}

function addCount(
  resources: Record<string, number>,
  name: string,
  count: number,
): void {
  resources[name] = (resources[name] ?? 0) + count;
}

/** The counts behind {@link advertisedGpuResources}. */
function advertisedCounts(config: PoolNodeConfig): Record<string, number> {
  const { pool, devicePlugin, mig } = config;
  const gpus = pool.gpusPerNode;
  const counts: Record<string, number> = {};
  if (devicePlugin.config.flags.migStrategy === 'mixed' && mig) {
    for (const [profile, perGpu] of Object.entries(mig.devices)) {
      if (perGpu > 0)
        addCount(counts, `nvidia.com/mig-${profile}`, perGpu * gpus);
    }
    return counts;
  }
  // Without a MIG layout, the mixed strategy advertises the (MIG-disabled) GPUs as whole GPUs, like `none`.
  const sharing = devicePlugin.config.sharing;
  const blocks = [sharing?.timeSlicing, sharing?.mps].filter(
    (b): b is DevicePluginSharing => b !== undefined,
  );
  const replicated = new Set<string>();
  for (const block of blocks) {
    for (const resource of block.resources) {
      const name = block.renameByDefault
        ? `${resource.name}.shared`
        : resource.name;
      addCount(counts, name, resource.replicas * gpus);
      replicated.add(resource.name);
    }
  }
  if (!replicated.has('nvidia.com/gpu')) {
    addCount(counts, 'nvidia.com/gpu', gpus);
  }
  return counts;
}

/**
 * The extended resources one node of a pool advertises, as the NVIDIA device plugin does with the pool's named
 * config (from `poolNodeConfigs`, the same config the device-plugin ConfigMap holds): `nvidia.com/gpu` x
 * `gpusPerNode` without sharing; with the MIG mixed strategy one `nvidia.com/mig-<profile>` per profile of the layout,
 * count per GPU x `gpusPerNode`, and no `nvidia.com/gpu`; with MPS or time-slicing of R replicas `nvidia.com/gpu`
 * (`nvidia.com/gpu.shared` when the config's `renameByDefault` is set) x R x `gpusPerNode`. Keys in name order,
 * quantities as decimal strings.
 *
 * @public
 */
export function advertisedGpuResources(
  config: PoolNodeConfig,
): Record<string, string> {
  const counts = advertisedCounts(config);
  return Object.fromEntries(
    Object.keys(counts)
      .sort()
      .map(name => [name, String(counts[name])]),
  );
}

/**
 * GPU feature-discovery labels of a node: `nvidia.com/gpu.*` for the physical GPUs (product with `-SHARED` when
 * shared GPUs keep their name, count, memory in MiB, replicas, sharing strategy), and on MIG nodes the MIG strategy
 * and `nvidia.com/mig-<profile>.count|product|replicas`.
 */
function featureDiscoveryLabels(
  platform: Platform,
  config: PoolNodeConfig,
): Record<string, string> {
  const { pool, mig } = config;
  const model = findGpuModel(platform, pool.gpuModel);
  const { strategy, block } = sharingBlock(config);
  const isMig = config.devicePlugin.config.flags.migStrategy === 'mixed';
  const replicas = block?.resources[0]?.replicas ?? 1;
  const shared = !isMig && strategy !== 'none' && replicas > 1;
  const sharedProduct = `${model.productLabel}-SHARED`;
  const labels: Record<string, string> = {
    'nvidia.com/gpu.present': 'true',
    'nvidia.com/gpu.product':
      shared && !block?.renameByDefault && isLabelValue(sharedProduct)
        ? sharedProduct
        : model.productLabel,
    'nvidia.com/gpu.count': String(pool.gpusPerNode),
    'nvidia.com/gpu.memory': String(Math.round(model.memoryGiB * 1024)),
    'nvidia.com/gpu.replicas': String(isMig ? 0 : replicas),
    'nvidia.com/gpu.sharing-strategy': isMig ? 'none' : strategy,
  };
  if (isMig) {
    labels['nvidia.com/mig.strategy'] = 'mixed';
    for (const [profile, perGpu] of Object.entries(mig?.devices ?? {})) {
      const product = `${model.productLabel}-MIG-${profile}`;
      labels[`nvidia.com/mig-${profile}.count`] = String(
        perGpu * pool.gpusPerNode,
      );
      if (isLabelValue(product)) {
        labels[`nvidia.com/mig-${profile}.product`] = product;
      }
      labels[`nvidia.com/mig-${profile}.replicas`] = '1';
    }
  }
  return labels;
}

/**
 * Host capacity of a node: enough CPU, memory and pods for every GPU unit it advertises to hold a serving pod (the
 * per-unit sizing of the ClusterQueues' host flavor), at least 32 cores, 256 GiB and 110 pods, so that the GPU
 * resources are what binds.
 */
function hostCapacity(
  platform: Platform,
  config: PoolNodeConfig,
  gpuCounts: Record<string, number>,
): Record<string, string> {
  const model = findGpuModel(platform, config.pool.gpuModel);
  const unitMemory = new Map(
    poolResources(platform, config.pool).map(r => [r.name, r.memoryGiB]),
  );
  let units = 0;
  let memoryGiB = 0;
  for (const [name, count] of Object.entries(gpuCounts)) {
    units += count;
    memoryGiB +=
      count * hostMemoryGiBPerGpuUnit(unitMemory.get(name) ?? model.memoryGiB);
  }
  return {
    cpu: String(Math.max(MIN_NODE_CPU, HOST_CPU_PER_GPU_UNIT * units)),
    memory: `${Math.max(MIN_NODE_MEMORY_GIB, memoryGiB)}Gi`,
    pods: String(Math.max(MIN_NODE_PODS, units + SPARE_PODS)),
    'ephemeral-storage': NODE_EPHEMERAL_STORAGE,
  };
}

/**
 * The simulated GPU nodes of a local test cluster: kwok (sigs.k8s.io/kwok) fake `Node` objects, `maxNodes` per pool,
 * named `<prefix><pool>-<i>` (i from 0; hashed down to a 63-character DNS-1123 label when longer), that advertise
 * what the NVIDIA device plugin would advertise with the config rendered for the pool ({@link advertisedGpuResources})
 * and carry the labels and taints the rendered pods select and tolerate. Nodes of a DRA pool advertise no GPU
 * resource: their GPUs are the devices of `simulatedResourceSlices`. A mismatch between what pods request and
 * what nodes advertise then leaves a pod Pending as unschedulable, as it would on a real cluster.
 *
 * @remarks
 * Each node has the pool's `nodeLabels`, the device-plugin / MIG config labels of {@link nodeConfigLabels}, GPU
 * feature-discovery labels (`nvidia.com/gpu.product`, `nvidia.com/gpu.count`, ...), `kubernetes.io/hostname`,
 * `kubernetes.io/os: linux`, `kubernetes.io/arch: amd64` and `type: kwok` (the pool's labels win over the generated
 * ones, except the hostname); the annotation `kwok.x-k8s.io/node: fake`, which makes kwok manage it; exactly the
 * pool's `nodeTaints`, each key and effect once (no kwok taint, which the rendered pods would not tolerate); and equal
 * `status.capacity` and `status.allocatable`. The API server keeps a Node's status only when the Node is created, so
 * create these objects rather than update existing nodes. Pure and deterministic.
 *
 * @throws GpuDomainError `INVALID_CONFIG` as {@link renderPlatformManifests} does: two pools using one config name for
 *   different configs, a pool's unknown GPU model or MIG profile, two taints of a pool with the same key and effect
 *   but different values.
 * @public
 */
export function simulatedGpuNodes(
  platform: Platform,
  options: SimulatedGpuNodeOptions = {},
): KubernetesObject[] {
  const prefix = options.namePrefix ?? 'kwok-';
  const configLabels = nodeConfigLabels(platform);
  return poolNodeConfigs(platform).flatMap(config => {
    const { pool } = config;
    const gpuCounts = advertisedCounts(config);
    // A DRA pool's GPUs are ResourceSlice devices (simulatedResourceSlices), not extended resources.
    const gpuResources =
      pool.allocation.backend === 'dra' ? {} : advertisedGpuResources(config);
    const resources = {
      ...hostCapacity(platform, config, gpuCounts),
      ...gpuResources,
    };
    const baseLabels = {
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      type: 'kwok',
      ...featureDiscoveryLabels(platform, config),
      ...pool.nodeLabels,
      ...configLabels[pool.name],
    };
    const taints: V1Taint[] = distinctTaints(pool).map(taint => ({
      key: taint.key,
      value: taint.value,
      effect: taint.effect,
    }));
    return Array.from({ length: pool.maxNodes }, (_, i) => {
      const name = stableName([`${prefix}${pool.name}`, String(i)]);
      const node: V1Node = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: { ...baseLabels, 'kubernetes.io/hostname': name },
          annotations: { [KWOK_NODE_ANNOTATION]: 'fake' },
        },
        spec: taints.length > 0 ? { taints } : {},
        status: {
          capacity: { ...resources },
          allocatable: { ...resources },
          nodeInfo: {
            architecture: 'amd64',
            bootID: '',
            containerRuntimeVersion: '',
            kernelVersion: '',
            kubeProxyVersion: 'fake',
            kubeletVersion: 'fake',
            machineID: '',
            operatingSystem: 'linux',
            osImage: '',
            systemUUID: '',
          },
        },
      };
      return stableObject(node);
    });
  });
}
