import { GpuDomainError } from '../errors';
import {
  migMemorySlices,
  migMemorySlicesPerGpu,
} from '../placement/migMemorySlices';
import { GpuModel, MigPartitioning } from '../platform/types';
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

/**
 * SMs one MIG-enabled GPU of `gpu` holds: those of its whole-GPU profile (the one taking every compute slice, e.g.
 * `7g.80gb`, 98 on an A100-80GB, 132 on an H100-80GB), what the NVIDIA DRA driver publishes as the GPU's
 * `multiprocessors` counter. Undefined when the catalogue does not know it.
 *
 * @public
 */
export function migMultiprocessorsPerGpu(gpu: GpuModel): number | undefined {
  if (!(gpu.migComputeSlices > 0)) return undefined;
  return gpu.migProfiles.find(
    p =>
      p.computeSlices === gpu.migComputeSlices &&
      p.multiprocessors !== undefined,
  )?.multiprocessors;
}

/**
 * What each MIG device of a dynamic MIG pool weighs: its SMs' share of the GPU, in GPU units, rounded up
 * (ceil(SMs x 5040 / SMs per GPU): exact on an A100, whose profiles' SMs are multiples of 98 / 7; on an H100 a unit
 * at most above the share, so that what the ledger admits Kueue, counting SMs, admits too). Nothing is stranded: the
 * driver carves the profiles on demand, so a GPU holds whatever mix its SMs and memory slices allow. `layout` names
 * the profiles the pool offers.
 *
 * @throws GpuDomainError `INVALID_CONFIG` when the GPU has no MIG, a profile is unknown, or the SMs of a profile or of
 *   the whole GPU are not catalogued.
 * @public
 */
export function dynamicMigSliceWeights(
  gpu: GpuModel,
  layout: Record<string, number>,
): MigSliceWeights & {
  multiprocessorsPerGpu: number;
  multiprocessorsByProfile: Record<string, number>;
} {
  const perGpu = migMultiprocessorsPerGpu(gpu);
  if (perGpu === undefined) {
    throw new GpuDomainError(
      'INVALID_CONFIG',
      `${gpu.name} has no SMs catalogued for its whole-GPU MIG profile; dynamic MIG weighs slices in SMs (give multiprocessors in gpu.gpuModels.${gpu.name}.migProfiles)`,
    );
  }
  const unitsByProfile: Record<string, number> = {};
  const multiprocessorsByProfile: Record<string, number> = {};
  for (const [name, count] of Object.entries(layout)) {
    if (!(count > 0)) continue;
    const profile = gpu.migProfiles.find(p => p.name === name);
    if (!profile || profile.multiprocessors === undefined) {
      throw new GpuDomainError(
        'INVALID_CONFIG',
        profile
          ? `${gpu.name} has no SMs catalogued for MIG profile ${name}; dynamic MIG weighs slices in SMs`
          : `The MIG layout names ${name}, which ${gpu.name} does not have`,
        { allowed: gpu.migProfiles.map(p => p.name) },
      );
    }
    multiprocessorsByProfile[name] = profile.multiprocessors;
    unitsByProfile[name] = Math.ceil(
      (profile.multiprocessors * GPU_UNITS_PER_EQUIVALENT) / perGpu,
    );
  }
  return {
    unitsByProfile,
    strandedUnitsPerGpu: 0,
    multiprocessorsPerGpu: perGpu,
    multiprocessorsByProfile,
  };
}

/**
 * The weights of a MIG pool's slices: `dynamicMigSliceWeights` on a dynamic MIG pool, `migSliceWeights` of its layout
 * otherwise.
 *
 * @public
 */
export function poolMigSliceWeights(
  gpu: GpuModel,
  sharing: { layout: Record<string, number>; partitioning?: MigPartitioning },
): MigSliceWeights {
  return sharing.partitioning === 'dynamic'
    ? dynamicMigSliceWeights(gpu, sharing.layout)
    : migSliceWeights(gpu, sharing.layout);
}
