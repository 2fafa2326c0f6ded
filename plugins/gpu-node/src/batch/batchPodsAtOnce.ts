import { GPU_UNITS_PER_EQUIVALENT } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * Pods of `gpusPerPod` whole GPUs that a ClusterQueue with `units` GPU units (1/5040 GPU) on a whole-GPU pool admits
 * at once from its own quota: floor(floor(units / 5040) / gpusPerPod), the ClusterQueue's nominal quota of the pool's
 * GPU resource divided by a pod's request.
 *
 * @public
 */
export function batchPodsAtOnce(units: number, gpusPerPod: number): number {
  return Math.floor(Math.floor(units / GPU_UNITS_PER_EQUIVALENT) / gpusPerPod);
}
