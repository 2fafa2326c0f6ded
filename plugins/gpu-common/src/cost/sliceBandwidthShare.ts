import {
  migMemorySlices,
  migMemorySlicesPerGpu,
} from '../placement/migMemorySlices';
import { Platform } from '../platform/types';
import { Slice } from '../tiers/types';

/**
 * Share of one card's memory bandwidth a replica on `slice` reads its weights and KV cache through, in cards:
 *
 * - dedicated: its GPUs (`gpusPerReplica`; tensor parallel replicas read in parallel);
 * - MIG: its memory slices over the GPU's (`migMemorySlices / migMemorySlicesPerGpu`): a MIG instance has its own
 *   memory controllers and L2 in proportion to its memory slices, so a `1g.20gb` of an A100-80GB (2 of 8) gets 1/4
 *   of the card's bandwidth although it bills by its weight and has 1/7 of the compute;
 * - MPS and time-slicing: 1/R (`gpuShare`), the replica's fair share of a card it competes for.
 *
 * Undefined for a MIG profile the platform's GPU model does not list.
 *
 * @public
 */
export function sliceBandwidthShare(
  platform: Platform,
  slice: Slice,
): number | undefined {
  if (slice.tier === 'dedicated') return slice.gpusPerReplica;
  if (slice.tier !== 'mig') return slice.gpuShare;
  const gpu = Object.hasOwn(platform.gpuModels, slice.gpuModel)
    ? platform.gpuModels[slice.gpuModel]
    : undefined;
  const profile = gpu?.migProfiles.find(p => p.name === slice.migProfile);
  if (!gpu || !profile) return undefined;
  return migMemorySlices(gpu, profile) / migMemorySlicesPerGpu(gpu);
}
