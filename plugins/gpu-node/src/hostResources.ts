import { SharingTier } from '@gpu-platform/backstage-plugin-gpu-common';

const GIB = 2 ** 30;

/** CPU cores a serving pod requests per whole GPU (dedicated tier). */
const CPU_PER_DEDICATED_GPU = 4;
/** CPU cores a serving pod on a MIG, MPS or time-sliced slice requests. */
const CPU_PER_SHARED_SLICE = 2;
/** Smallest memory request of a serving pod, GiB. */
const MIN_MEMORY_GIB = 8;
/** Memory limit above the request, GiB (page cache while loading weights, tokenizer, Python). */
const MEMORY_LIMIT_HEADROOM_GIB = 8;

/**
 * CPU a ClusterQueue grants per unit of a GPU resource: at least what one serving pod asks per unit.
 *
 * @public
 */
export const HOST_CPU_PER_GPU_UNIT = CPU_PER_DEDICATED_GPU;

/**
 * Memory (GiB) a ClusterQueue grants per unit of a GPU resource whose unit has `unitMemoryGiB` of GPU memory: the
 * unit's memory rounded up plus 16 GiB. A serving pod asks for its weights plus 1 GiB (at least 8 GiB), and the
 * weights fit in the GPU memory of the units it holds, so any set of pods the GPU quota admits fits this quota.
 *
 * @public
 */
export function hostMemoryGiBPerGpuUnit(unitMemoryGiB: number): number {
  return Math.ceil(unitMemoryGiB) + 16;
}

/**
 * Host CPU and memory of one serving pod.
 *
 * @public
 */
export interface PodHostResources {
  /** CPU cores requested (no CPU limit, so the server is never throttled). */
  cpu: number;
  /** Memory request, GiB. */
  memoryRequestGiB: number;
  /** Memory limit, GiB. */
  memoryLimitGiB: number;
}

/**
 * Host resources of a serving pod: 4 cores per dedicated GPU (2 on a shared slice); memory request = weights + 1 GiB
 * rounded up, at least 8 GiB; limit = request + 8 GiB. The report summariser's Llama-3.1-8B in bf16 gets requests cpu 4 and
 * memory 16Gi, limit 24Gi.
 *
 * @public
 */
export function podHostResources(args: {
  tier: SharingTier;
  gpusPerReplica: number;
  weightsBytes: number;
}): PodHostResources {
  const cpu =
    args.tier === 'dedicated'
      ? CPU_PER_DEDICATED_GPU * args.gpusPerReplica
      : CPU_PER_SHARED_SLICE;
  const memoryRequestGiB = Math.max(
    MIN_MEMORY_GIB,
    Math.ceil(args.weightsBytes / GIB) + 1,
  );
  return {
    cpu,
    memoryRequestGiB,
    memoryLimitGiB: memoryRequestGiB + MEMORY_LIMIT_HEADROOM_GIB,
  };
}
