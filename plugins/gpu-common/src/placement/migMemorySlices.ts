import { GpuModel, MigProfile } from '../platform/types';

/**
 * Memory slices a MIG-enabled GPU has: 8 on the 7-compute-slice GPUs (A100, H100, H200), as many as compute slices
 * otherwise (A30: 4).
 *
 * @public
 */
export function migMemorySlicesPerGpu(gpu: GpuModel): number {
  return gpu.migComputeSlices === 7 ? 8 : gpu.migComputeSlices;
}

/**
 * Memory slices a MIG profile takes: its memory over the full-GPU profile's, in memory slices, rounded (`1g.10gb`
 * of an A100-80GB is 1 of 8, `1g.20gb` 2, `3g.40gb` 4; `3g.47gb` of an H100 NVL 4). Together with the compute
 * slices and the per-profile maximum this approximates NVIDIA's placement rules: it rejects
 * `3g.20gb + 3g.20gb + 1g.5gb` (9 memory slices) and accepts `4g.20gb + 2g.10gb + 1g.5gb`.
 *
 * @public
 */
export function migMemorySlices(gpu: GpuModel, profile: MigProfile): number {
  const full = Math.max(...gpu.migProfiles.map(p => p.memoryGb));
  return Math.max(
    1,
    Math.round((profile.memoryGb * migMemorySlicesPerGpu(gpu)) / full),
  );
}
