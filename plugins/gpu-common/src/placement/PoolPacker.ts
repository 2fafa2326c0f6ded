/**
 * What one replica takes from a GPU of a sliced pool (MIG, MPS, time-slicing).
 */
export interface SliceDemand {
  /** Compute slices (MIG) or sharing replicas (MPS, time-slicing) taken. */
  units: number;
  /** MIG memory slices taken; 0 elsewhere. */
  memorySlices: number;
  /** Bytes of card memory reserved. */
  memoryBytes: number;
  /** MIG profile, counted against its per-GPU maximum. */
  migProfile?: string;
}

/**
 * Places replicas on the physical GPUs of one pool and takes them off again.
 */
export interface PoolPacker {
  /** GPU indices (within the pool) the replica got, or undefined when the pool has no room for it. */
  place(demand: SliceDemand, gpusPerReplica: number): number[] | undefined;
  /** Undoes a `place`. */
  release(demand: SliceDemand, gpus: number[]): void;
  /** GPUs holding at least one replica. */
  gpusUsed(): number;
  /** MIG layouts of the used GPUs (profile to instances), with how many GPUs have each; empty unless MIG. */
  migLayouts(): Array<{ layout: Record<string, number>; gpus: number }>;
}
