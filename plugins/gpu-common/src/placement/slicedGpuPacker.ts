import { PoolPacker, SliceDemand } from './PoolPacker';

/** Capacity of one GPU of a sliced pool. */
export interface SlicedGpuCapacity {
  /** Compute slices (MIG: 7 or 4) or sharing replicas R (MPS, time-slicing). */
  units: number;
  /** MIG memory slices (8 or 4); 0 when not MIG. */
  memorySlices: number;
  /** Card memory in bytes. */
  memoryBytes: number;
  /** Most instances of each MIG profile one GPU holds. */
  maxInstances: Record<string, number>;
}

interface GpuState {
  units: number;
  memorySlices: number;
  memoryBytes: number;
  replicas: number;
  profiles: Map<string, number>;
}

/** Candidates looked at per bucket before opening another GPU, to keep placement linear in the worst case. */
const SCAN_LIMIT = 64;

/**
 * Packs MIG slices or MPS / time-sliced replicas onto a pool's GPUs, best fit by free units: the fullest GPU that
 * still has room in compute (or replica) slots, MIG memory slices, the profile's instance limit and card memory.
 */
export function slicedGpuPacker(
  capacity: SlicedGpuCapacity,
  maxGpus: number,
): PoolPacker {
  const gpus: GpuState[] = [];
  /**
   * Opened GPUs by free units and free MIG memory slices (`bucket(units, memorySlices)`). Keyed by both, a GPU whose
   * memory slices are all taken (four 1g.20gb of an A100-80GB leave 3 compute slices free) is never scanned for a
   * demand it cannot take: keyed by free units alone, hundreds of them filled the bucket ahead of GPUs that had room,
   * the scan limit was reached and a new GPU opened for every few replicas.
   */
  const memoryBuckets = capacity.memorySlices + 1;
  const byFree: Array<Set<number>> = Array.from(
    { length: (capacity.units + 1) * memoryBuckets },
    () => new Set(),
  );
  const bucket = (gpu: GpuState): Set<number> =>
    byFree[
      (capacity.units - gpu.units) * memoryBuckets +
        (capacity.memorySlices - gpu.memorySlices)
    ];
  const memoryLimit = capacity.memoryBytes * (1 + 1e-9);
  let used = 0;

  function fits(gpu: GpuState, demand: SliceDemand): boolean {
    return (
      gpu.units + demand.units <= capacity.units &&
      gpu.memorySlices + demand.memorySlices <= capacity.memorySlices &&
      gpu.memoryBytes + demand.memoryBytes <= memoryLimit &&
      (demand.migProfile === undefined ||
        (gpu.profiles.get(demand.migProfile) ?? 0) <
          (capacity.maxInstances[demand.migProfile] ?? 0))
    );
  }

  function apply(index: number, demand: SliceDemand, sign: 1 | -1): void {
    const gpu = gpus[index];
    bucket(gpu).delete(index);
    gpu.units += sign * demand.units;
    gpu.memorySlices += sign * demand.memorySlices;
    gpu.memoryBytes += sign * demand.memoryBytes;
    const wasEmpty = gpu.replicas === 0;
    gpu.replicas += sign;
    if (wasEmpty) {
      used += 1;
    } else if (gpu.replicas === 0) {
      used -= 1;
      gpu.memoryBytes = 0; // drop float residue
    }
    if (demand.migProfile !== undefined) {
      const count = (gpu.profiles.get(demand.migProfile) ?? 0) + sign;
      if (count === 0) {
        gpu.profiles.delete(demand.migProfile);
      } else {
        gpu.profiles.set(demand.migProfile, count);
      }
    }
    bucket(gpu).add(index);
  }

  return {
    place(demand) {
      // Fullest first: fewest free units, then fewest free memory slices.
      for (let free = demand.units; free <= capacity.units; free++) {
        for (
          let freeSlices = demand.memorySlices;
          freeSlices <= capacity.memorySlices;
          freeSlices++
        ) {
          let scanned = 0;
          for (const index of byFree[free * memoryBuckets + freeSlices]) {
            if (fits(gpus[index], demand)) {
              apply(index, demand, 1);
              return [index];
            }
            if (++scanned >= SCAN_LIMIT) {
              break;
            }
          }
        }
      }
      const fresh: GpuState = {
        units: 0,
        memorySlices: 0,
        memoryBytes: 0,
        replicas: 0,
        profiles: new Map(),
      };
      if (gpus.length >= maxGpus || !fits(fresh, demand)) {
        return undefined;
      }
      gpus.push(fresh);
      bucket(fresh).add(gpus.length - 1);
      apply(gpus.length - 1, demand, 1);
      return [gpus.length - 1];
    },
    release(demand, indices) {
      // An emptied GPU stays open (in the bucket of fully free GPUs) and is reused before a new one is opened.
      for (const index of indices) {
        apply(index, demand, -1);
      }
    },
    gpusUsed: () => used,
    migLayouts() {
      const counts = new Map<
        string,
        { layout: Record<string, number>; gpus: number }
      >();
      for (const gpu of gpus) {
        if (gpu.replicas === 0 || gpu.profiles.size === 0) {
          continue;
        }
        const layout = Object.fromEntries(
          [...gpu.profiles.entries()].sort(([a], [b]) => a.localeCompare(b)),
        );
        const key = JSON.stringify(layout);
        const entry = counts.get(key) ?? { layout, gpus: 0 };
        entry.gpus += 1;
        counts.set(key, entry);
      }
      return [...counts.values()].sort((a, b) => b.gpus - a.gpus);
    },
  };
}
