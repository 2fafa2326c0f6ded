import { GpuDomainError } from '../errors';
import { findPool } from '../platform/lookups';
import { Platform } from '../platform/types';
import { PackedPool, poolPackerFor } from './poolPackerFor';
import { repackMigPool } from './repackMigPool';
import {
  GpuCount,
  PlacementPlan,
  PlanAssignment,
  PlannerItem,
  UnplacedService,
} from './types';

const EPSILON = 1e-9;

interface PoolLoad {
  units: number;
  memorySlices: number;
  memoryBytes: number;
}

/**
 * Packs services onto the pools' physical GPUs, first-fit decreasing: services in decreasing order of the GPU share
 * and memory of their first option, each on the first of its options whose pool has room for all its replicas, each
 * replica on the fullest GPU (or node, for dedicated) it fits.
 */
export function packPlannerItems(
  platform: Platform,
  items: readonly PlannerItem[],
): PlacementPlan {
  const pools = new Map<string, PackedPool>();
  const loads = new Map<string, PoolLoad>();
  const packedPool = (name: string): PackedPool => {
    let packed = pools.get(name);
    if (!packed) {
      packed = poolPackerFor(platform, findPool(platform, name));
      pools.set(name, packed);
      loads.set(name, { units: 0, memorySlices: 0, memoryBytes: 0 });
    }
    return packed;
  };

  items.forEach(checkItem);
  const order = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => {
      const x = a.item.options[0];
      const y = b.item.options[0];
      return (
        (y?.gpuShare ?? 0) - (x?.gpuShare ?? 0) ||
        (y?.memoryBytes ?? 0) - (x?.memoryBytes ?? 0) ||
        a.index - b.index
      );
    });

  const assignments: Array<PlanAssignment | undefined> = new Array(
    items.length,
  );
  const unplaced: UnplacedService[] = [];
  let allDedicatedGpus = 0;

  for (const { item, index } of order) {
    const full: string[] = [];
    for (
      let optionIndex = 0;
      optionIndex < item.options.length;
      optionIndex++
    ) {
      const option = item.options[optionIndex];
      const packed = packedPool(option.pool);
      const demand = packed.demandOf(option);
      const gpus: number[][] = [];
      for (let replica = 0; replica < item.replicas; replica++) {
        const placed = packed.packer.place(demand, option.gpusPerReplica);
        if (!placed) {
          break;
        }
        gpus.push(placed);
      }
      if (gpus.length < item.replicas) {
        gpus.forEach(placed => packed.packer.release(demand, placed));
        full.push(option.pool);
        continue;
      }
      const load = loads.get(option.pool)!;
      load.units += item.replicas * demand.units;
      load.memorySlices += item.replicas * demand.memorySlices;
      load.memoryBytes += item.replicas * demand.memoryBytes;
      assignments[index] = {
        ...option,
        service: item.name,
        replicas: item.replicas,
        gpus,
        optionIndex,
      };
      allDedicatedGpus += item.replicas * dedicatedGpusPerReplica(item);
      break;
    }
    if (!assignments[index]) {
      unplaced.push({
        service: item.name,
        reason:
          item.options.length === 0
            ? 'No option: the model fits no slice that policy allows'
            : `No room for ${item.replicas} replica(s) in pool(s) ${[
                ...new Set(full),
              ].join(', ')}`,
      });
    }
  }

  const gpusUsed: GpuCount = { total: 0, byPool: {} };
  const lowerBound: GpuCount = { total: 0, byPool: {} };
  const migLayouts: PlacementPlan['migLayouts'] = [];
  for (const [name, packed] of pools) {
    let used = packed.packer.gpusUsed();
    let layouts = packed.packer.migLayouts();
    const repacked = packed.mig
      ? repackPool(packed, name, assignments, used)
      : undefined;
    if (repacked) {
      used = repacked.gpusUsed;
      layouts = repacked.layouts;
    }
    const bound = poolLowerBound(packed, loads.get(name)!);
    if (used === 0 && bound === 0) {
      continue;
    }
    gpusUsed.byPool[name] = used;
    gpusUsed.total += used;
    lowerBound.byPool[name] = bound;
    lowerBound.total += bound;
    for (const layout of layouts) {
      migLayouts.push({ pool: name, ...layout });
    }
  }

  return {
    assignments: assignments.filter((a): a is PlanAssignment => !!a),
    unplaced,
    gpusUsed,
    lowerBound,
    ratio: lowerBound.total === 0 ? 1 : gpusUsed.total / lowerBound.total,
    allDedicatedGpus,
    gpusSaved: allDedicatedGpus - gpusUsed.total,
    migLayouts,
  };
}

/**
 * Repacks a MIG pool's placed replicas layout by layout ({@link repackMigPool}) and, when that takes fewer GPUs
 * than first-fit decreasing did (and no more than the pool has), moves them: each replica's GPU index is rewritten.
 * The services and their pools stay as placed.
 */
function repackPool(
  packed: PackedPool,
  name: string,
  assignments: Array<PlanAssignment | undefined>,
  used: number,
) {
  const mig = packed.mig!;
  const replicas: Array<{ assignment: PlanAssignment; replica: number }> = [];
  const demands = [];
  for (const assignment of assignments) {
    if (!assignment || assignment.pool !== name) continue;
    const demand = packed.demandOf(assignment);
    for (let replica = 0; replica < assignment.replicas; replica++) {
      replicas.push({ assignment, replica });
      demands.push({ demand });
    }
  }
  if (replicas.length === 0) return undefined;
  const repack = repackMigPool(mig.capacity, demands);
  if (!repack || repack.gpusUsed >= used || repack.gpusUsed > mig.maxGpus) {
    return undefined;
  }
  replicas.forEach(({ assignment, replica }, i) => {
    assignment.gpus[replica] = [repack.gpuOf[i]];
  });
  return repack;
}

function poolLowerBound(packed: PackedPool, load: PoolLoad): number {
  const byShare = Math.ceil(load.units / packed.unitsPerGpu - EPSILON);
  const byMemory = Math.ceil(load.memoryBytes / packed.cardBytes - EPSILON);
  const byMemorySlices =
    packed.memorySlicesPerGpu > 0
      ? Math.ceil(load.memorySlices / packed.memorySlicesPerGpu - EPSILON)
      : 0;
  return Math.max(byShare, byMemory, byMemorySlices);
}

function dedicatedGpusPerReplica(item: PlannerItem): number {
  return (
    item.dedicatedGpusPerReplica ??
    item.options.find(o => o.tier === 'dedicated')?.gpusPerReplica ??
    1
  );
}

function checkItem(item: PlannerItem): void {
  if (
    !Number.isInteger(item.replicas) ||
    item.replicas < 0 ||
    item.replicas > 1000
  ) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      `Service ${item.name} asks for ${item.replicas} replicas; allowed: a whole number from 0 to 1000`,
    );
  }
  for (const option of item.options) {
    if (
      !Number.isInteger(option.gpusPerReplica) ||
      option.gpusPerReplica < 1 ||
      (option.tier !== 'dedicated' && option.gpusPerReplica !== 1)
    ) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `Service ${item.name} has an option with ${option.gpusPerReplica} GPUs per replica on pool ${option.pool}; allowed: a whole number of at least 1, and exactly 1 for shared tiers`,
      );
    }
    if (!(option.memoryBytes >= 0) || !(option.gpuShare > 0)) {
      throw new GpuDomainError(
        'OUT_OF_RANGE',
        `Service ${item.name} has an option on pool ${option.pool} with memory ${option.memoryBytes} and GPU share ${option.gpuShare}; allowed: memory of 0 or more bytes and a share above 0`,
      );
    }
  }
}
