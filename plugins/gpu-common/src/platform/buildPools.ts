import { z } from 'zod';
import { GB, GIB } from '../sizing/units';
import { listAllowed } from '../errors';
import { ConfigIssues } from './configIssues';
import { toDecimalString } from './decimal';
import { isDns1123Label, isLabelKey, isLabelValue } from './names';
import { platformConfigSchema } from './platformConfigSchema';
import {
  dynamicMigSliceWeights,
  migMultiprocessorsPerGpu,
} from '../tiers/migSliceWeights';
import { DYNAMIC_MIG_RESOURCE } from '../tiers/draDeviceClasses';
import { GpuModel, Pool, PoolAllocation, PoolSharing } from './types';

type RawPool = NonNullable<
  z.output<typeof platformConfigSchema>['pools']
>[number];

/** A sanity bound: the largest 8-GPU cloud instances cost about 100 USD an hour. */
const MAX_PRICE_PER_NODE_HOUR = 10_000;

/** Kueue allows at most 8 `nodeLabels` on a ResourceFlavor. */
const MAX_NODE_LABELS = 8;

/** Pools from `gpu.pools`, each cross-checked against the GPU models. */
export function buildPools(
  raw: RawPool[],
  gpuModels: Record<string, GpuModel>,
  issues: ConfigIssues,
): Pool[] {
  const seen = new Set<string>();
  return raw.map((entry, index) => {
    const path = ['gpu', 'pools', index];
    if (!isDns1123Label(entry.name)) {
      issues.add(
        [...path, 'name'],
        `"${entry.name}" is not a DNS-1123 label (lowercase letters, digits and "-", at most 63 characters)`,
      );
    }
    if (seen.has(entry.name)) {
      issues.add([...path, 'name'], `duplicate pool name "${entry.name}"`);
    }
    seen.add(entry.name);

    const gpu = gpuModels[entry.gpuModel];
    if (!gpu) {
      issues.add(
        [...path, 'gpuModel'],
        `unknown GPU model "${entry.gpuModel}"; allowed: ${listAllowed(
          Object.keys(gpuModels),
        )}`,
      );
    }

    const price = toDecimalString(entry.pricePerNodeHour);
    if (price !== undefined && Number(price) > MAX_PRICE_PER_NODE_HOUR) {
      issues.add(
        [...path, 'pricePerNodeHour'],
        `${price} USD per node-hour is implausible; allowed: 0 to ${MAX_PRICE_PER_NODE_HOUR}`,
      );
    }
    if (price === undefined) {
      issues.add(
        [...path, 'pricePerNodeHour'],
        `${JSON.stringify(
          entry.pricePerNodeHour,
        )} is not a non-negative decimal; write USD per node-hour such as 0.8048`,
      );
    }

    const nodeLabels = entry.nodeLabels ?? {};
    checkNodeLabels(nodeLabels, [...path, 'nodeLabels'], issues);
    const nodeTaints = entry.nodeTaints ?? [];
    nodeTaints.forEach((taint, i) => {
      if (!isLabelKey(taint.key)) {
        issues.add(
          [...path, 'nodeTaints', i, 'key'],
          `"${taint.key}" is not a valid taint key such as nvidia.com/gpu`,
        );
      }
      if (taint.value !== undefined && !isLabelValue(taint.value)) {
        issues.add(
          [...path, 'nodeTaints', i, 'value'],
          `"${taint.value}" is not a valid taint value (<= 63 letters, digits, "-", "_", ".")`,
        );
      }
    });

    const sharing: PoolSharing = entry.sharing ?? { type: 'none' };
    if (gpu) {
      checkSharing(sharing, gpu, [...path, 'sharing'], issues);
    }
    const renameByDefault = entry.renameByDefault ?? false;
    if (
      renameByDefault &&
      sharing.type !== 'mps' &&
      sharing.type !== 'time-slicing'
    ) {
      issues.add(
        [...path, 'renameByDefault'],
        'applies only to pools whose sharing type is mps or time-slicing',
      );
    }

    const allocation = poolAllocation(
      entry.allocation ?? 'device-plugin',
      sharing,
      gpu,
      path,
      issues,
    );

    return {
      name: entry.name,
      gpuModel: entry.gpuModel,
      gpusPerNode: entry.gpusPerNode,
      maxNodes: entry.maxNodes,
      nodeLabels,
      nodeTaints,
      capacityType: entry.capacityType ?? 'on-demand',
      pricePerNodeHour: price ?? '0',
      sharing,
      renameByDefault,
      allocation,
      ...(entry.cluster !== undefined && { cluster: entry.cluster }),
    };
  });
}

/**
 * The allocation of a pool: what was asked for, except that the MPS and time-sliced tiers fall back to the device
 * plugin (see `DraFallbackReason`), and that a static DRA MIG pool must hold a single profile: Kueue's
 * `deviceClassMappings` count devices of class `mig.nvidia.com` whatever their size, so its quota matches the ledger's
 * GPU units only when every device of the pool weighs the same. A dynamic MIG pool (`sharing.partitioning: dynamic`)
 * must be a DRA pool on a GPU whose profiles' SMs are catalogued: Kueue charges its devices their SMs.
 */
function poolAllocation(
  requested: PoolAllocation['requested'],
  sharing: PoolSharing,
  gpu: GpuModel | undefined,
  poolPath: PropertyKey[],
  issues: ConfigIssues,
): PoolAllocation {
  const path = [...poolPath, 'allocation'];
  const dynamic = sharing.type === 'mig' && sharing.partitioning === 'dynamic';
  if (dynamic && requested !== 'dra') {
    issues.add(
      [...poolPath, 'sharing', 'partitioning'],
      'dynamic MIG is carved by the NVIDIA DRA driver on demand: it needs allocation dra (the device plugin serves ' +
        'only a static MIG layout); set allocation: dra, or partitioning: static',
    );
  }
  if (requested === 'device-plugin') {
    return { backend: 'device-plugin', requested };
  }
  if (sharing.type === 'mps' || sharing.type === 'time-slicing') {
    const tier = sharing.type === 'mps' ? 'MPS' : 'time-sliced';
    return {
      backend: 'device-plugin',
      requested,
      fallback: {
        reason: 'shared-claims-refused',
        message:
          `the ${tier} tier is served by the device plugin: sharing one GPU between services through DRA takes one ` +
          'ResourceClaim named by several pods, which Kueue refuses to admit, and the NVIDIA DRA driver shares a ' +
          'device between claims only through an alpha feature that refuses MPS',
      },
    };
  }
  if (sharing.type === 'mig' && dynamic) {
    const dynamicMig = gpu
      ? dynamicMigAllocation(
          gpu,
          sharing.layout,
          [...poolPath, 'sharing'],
          issues,
        )
      : undefined;
    return { backend: 'dra', requested, ...(dynamicMig && { dynamicMig }) };
  }
  if (sharing.type === 'mig') {
    const profiles = Object.keys(sharing.layout);
    if (profiles.length > 1) {
      issues.add(
        path,
        `a DRA MIG pool holds one MIG profile (the layout has ${profiles.join(
          ', ',
        )}): Kueue counts devices of class mig.nvidia.com whatever their size; split the layout into one pool per ` +
          'profile, or use allocation device-plugin',
      );
    }
  }
  return { backend: 'dra', requested };
}

/** What a dynamic MIG pool carves, or issues when the SMs its weights need are not catalogued. */
function dynamicMigAllocation(
  gpu: GpuModel,
  layout: Record<string, number>,
  path: PropertyKey[],
  issues: ConfigIssues,
): PoolAllocation['dynamicMig'] {
  if (gpu.migProfiles.length === 0) return undefined; // checkSharing reported it
  if (migMultiprocessorsPerGpu(gpu) === undefined) {
    issues.add(
      [...path, 'partitioning'],
      `dynamic MIG weighs slices in SMs, and ${gpu.name}'s whole-GPU MIG profile has none catalogued; give ` +
        `multiprocessors for its MIG profiles in gpu.gpuModels.${gpu.name}.migProfiles, or use partitioning: static`,
    );
    return undefined;
  }
  const unknown = Object.keys(layout).filter(name => {
    const profile = gpu.migProfiles.find(p => p.name === name);
    return profile !== undefined && profile.multiprocessors === undefined;
  });
  for (const name of unknown) {
    issues.add(
      [...path, 'layout', name],
      `dynamic MIG weighs slices in SMs, and ${gpu.name}'s ${name} has none catalogued; give its multiprocessors in ` +
        `gpu.gpuModels.${gpu.name}.migProfiles, or leave it out of the layout`,
    );
  }
  if (
    unknown.length > 0 ||
    Object.keys(layout).some(
      name => !gpu.migProfiles.some(p => p.name === name),
    )
  ) {
    return undefined;
  }
  const weights = dynamicMigSliceWeights(gpu, layout);
  const profiles = Object.keys(weights.multiprocessorsByProfile).sort(
    (a, b) =>
      weights.multiprocessorsByProfile[a] -
        weights.multiprocessorsByProfile[b] || (a < b ? -1 : 1),
  );
  const described = profiles
    .map(p => `${p} (${weights.multiprocessorsByProfile[p]} SMs)`)
    .join(', ');
  return {
    profiles,
    multiprocessorsPerGpu: weights.multiprocessorsPerGpu,
    multiprocessorsByProfile: weights.multiprocessorsByProfile,
    message:
      `dynamic MIG: the NVIDIA DRA driver carves ${described} on demand on each ${gpu.name}, any mix its ` +
      `${weights.multiprocessorsPerGpu} SMs and memory slices hold; a slice costs and counts its SMs' share of the ` +
      `GPU, and Kueue charges it in ${DYNAMIC_MIG_RESOURCE}`,
  };
}

function checkNodeLabels(
  labels: Record<string, string>,
  path: PropertyKey[],
  issues: ConfigIssues,
) {
  const keys = Object.keys(labels);
  if (keys.length > MAX_NODE_LABELS) {
    issues.add(
      path,
      `${keys.length} labels; a Kueue ResourceFlavor allows at most ${MAX_NODE_LABELS}`,
    );
  }
  for (const key of keys) {
    if (!isLabelKey(key)) {
      issues.add(
        [...path, key],
        'is not a valid label key such as nvidia.com/gpu.product',
      );
    } else if (!isLabelValue(labels[key])) {
      issues.add(
        [...path, key],
        `"${labels[key]}" is not a valid label value (<= 63 letters, digits, "-", "_", ".")`,
      );
    }
  }
}

function checkSharing(
  sharing: PoolSharing,
  gpu: GpuModel,
  path: PropertyKey[],
  issues: ConfigIssues,
) {
  if (sharing.type !== 'mig') {
    return;
  }
  if (gpu.migProfiles.length === 0) {
    issues.add(
      path,
      `${gpu.name} has no MIG; use type none, mps or time-slicing, or a GPU with MIG profiles`,
    );
    return;
  }
  const entries = Object.entries(sharing.layout);
  if (entries.length === 0) {
    issues.add(
      [...path, 'layout'],
      'a MIG layout needs at least one profile, e.g. { 3g.40gb: 2 }',
    );
    return;
  }
  const allowed = gpu.migProfiles.map(p => p.name);
  let computeSlices = 0;
  let memoryBytes = 0;
  for (const [name, count] of entries) {
    const profile = gpu.migProfiles.find(p => p.name === name);
    if (!profile) {
      issues.add(
        [...path, 'layout', name],
        `${gpu.name} has no MIG profile ${name}; allowed: ${listAllowed(
          allowed,
        )}`,
      );
      continue;
    }
    if (count > profile.maxInstances) {
      issues.add(
        [...path, 'layout', name],
        `${count} instances; ${gpu.name} holds at most ${profile.maxInstances} x ${name}`,
      );
    }
    computeSlices += profile.computeSlices * count;
    memoryBytes += profile.memoryGb * GB * count;
  }
  if (sharing.partitioning === 'dynamic') {
    // The layout of a dynamic pool lists the profiles it offers; the driver carves them on demand, in any mix a GPU
    // holds, so the instances need not fit one GPU together.
    return;
  }
  if (computeSlices > gpu.migComputeSlices) {
    issues.add(
      [...path, 'layout'],
      `the layout takes ${computeSlices} compute slices; ${gpu.name} has ${gpu.migComputeSlices}`,
    );
  }
  if (memoryBytes > gpu.memoryGiB * GIB) {
    issues.add(
      [...path, 'layout'],
      `the layout takes ${memoryBytes / GB} GB; ${gpu.name} has ${
        gpu.memoryGiB
      } GiB`,
    );
  }
}
