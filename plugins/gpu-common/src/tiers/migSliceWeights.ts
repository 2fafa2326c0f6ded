import { GpuDomainError } from '../errors';
import {
  migMemorySlices,
  migMemorySlicesPerGpu,
} from '../placement/migMemorySlices';
import { GpuModel } from '../platform/types';
import { GPU_UNITS_PER_EQUIVALENT } from './gpuUnits';

/**
 * What each MIG instance of a layout weighs, in GPU units (1/5040 GPU), and what the layout leaves unused.
 *
 * @public
 */
export interface MigSliceWeights {
  /** GPU units one instance of each profile of the layout weighs (profiles with instances only). */
  unitsByProfile: Record<string, number>;
  /** GPU units per GPU no instance accounts for: 5040 minus the layout's instances times their weights. */
  strandedUnitsPerGpu: number;
}

/**
 * The MIG convention: an instance weighs the larger of its compute share (profile compute slices / the GPU's) and
 * its memory share (memory slices / the GPU's, see `migMemorySlices`), in GPU units. When one GPU's instances
 * (`layout`: profile to instances per GPU) weigh more than one GPU together, the weights are scaled so they add up
 * to exactly one GPU, rounded by largest remainder (a unit that cannot be given to every instance of a profile stays
 * stranded); when they weigh less, the rest is stranded. Always: sum(instances x weight) + stranded = 5040.
 *
 * A100-80GB: four `1g.20gb` weigh 1260 each (2 of 8 memory slices); `3g.40gb` + `4g.40gb` weigh 2520 + 2880 = 5400
 * raw, 2352 + 2688 scaled; two `1g.10gb` weigh 720 each and leave 3600 stranded.
 *
 * @throws GpuDomainError `INVALID_CONFIG` when the GPU has no MIG or the layout names a profile it does not have.
 * @public
 */
export function migSliceWeights(
  gpu: GpuModel,
  layout: Record<string, number>,
): MigSliceWeights {
  if (!(gpu.migComputeSlices > 0)) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `${gpu.name} has no MIG compute slices; a MIG layout needs a MIG-capable GPU`,
    );
  }
  const memoryPerGpu = migMemorySlicesPerGpu(gpu);
  const entries: Array<{ profile: string; count: number; raw: number }> = [];
  for (const [name, count] of Object.entries(layout)) {
    if (!(count > 0)) continue;
    const profile = gpu.migProfiles.find(p => p.name === name);
    if (!profile) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        `The MIG layout names ${name}, which ${
          gpu.name
        } does not have; profiles: ${gpu.migProfiles
          .map(p => p.name)
          .join(', ')}`,
        { allowed: gpu.migProfiles.map(p => p.name) },
      );
    }
    const compute = Math.floor(
      (profile.computeSlices * GPU_UNITS_PER_EQUIVALENT) / gpu.migComputeSlices,
    );
    const memory = Math.floor(
      (migMemorySlices(gpu, profile) * GPU_UNITS_PER_EQUIVALENT) / memoryPerGpu,
    );
    entries.push({ profile: name, count, raw: Math.max(compute, memory) });
  }
  const rawTotal = entries.reduce((sum, e) => sum + e.count * e.raw, 0);
  const unitsByProfile: Record<string, number> = {};
  if (rawTotal <= GPU_UNITS_PER_EQUIVALENT) {
    for (const e of entries) unitsByProfile[e.profile] = e.raw;
    return {
      unitsByProfile,
      strandedUnitsPerGpu: GPU_UNITS_PER_EQUIVALENT - rawTotal,
    };
  }
  // Scale by 5040 / rawTotal: floor each weight, then hand the units left over to the largest remainders, one unit
  // per instance of the profile, as long as they last.
  const scaled = entries.map(e => {
    const numerator = e.raw * GPU_UNITS_PER_EQUIVALENT;
    return {
      ...e,
      units: Math.floor(numerator / rawTotal),
      remainder: numerator % rawTotal,
    };
  });
  let left =
    GPU_UNITS_PER_EQUIVALENT -
    scaled.reduce((s, e) => s + e.count * e.units, 0);
  const byRemainder = [...scaled].sort(
    (a, b) => b.remainder - a.remainder || (a.profile < b.profile ? -1 : 1),
  );
  for (const e of byRemainder) {
    if (e.remainder > 0 && e.count <= left) {
      e.units += 1;
      left -= e.count;
    }
  }
  for (const e of scaled) unitsByProfile[e.profile] = e.units;
  return { unitsByProfile, strandedUnitsPerGpu: left };
}
