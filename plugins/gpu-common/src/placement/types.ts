import { UsdMicros } from '../cost/money';
import { SharingTier } from '../platform/types';

/**
 * One way a service's replicas can be placed: a slice of a pool.
 *
 * @public
 */
export interface PlannerOption {
  tier: SharingTier;
  /** Pool name. */
  pool: string;
  /** MIG profile, required for the `mig` tier. */
  migProfile?: string;
  /** Whole GPUs per replica, on one node, for `dedicated`; 1 otherwise. */
  gpusPerReplica: number;
  /** GPU-equivalents one replica holds (the slice's `gpuShare`: GPUs, the MIG slice's weight, or 1 / R). */
  gpuShare: number;
  /** Memory one replica reserves, in bytes, over all its GPUs (the slice's memory). */
  memoryBytes: number;
  /** Cost of one replica per month; options are tried in the order given, so callers sort by it. */
  monthlyCost?: UsdMicros;
}

/**
 * A service as the planner sees it: replicas and the options it may use, best first.
 *
 * @public
 */
export interface PlannerItem {
  /** Unique name of the service. */
  name: string;
  replicas: number;
  /** Options allowed by policy that fit the model, in order of preference (cheapest first). */
  options: PlannerOption[];
  /** GPUs per replica if the service ran on whole GPUs, for the "all dedicated" comparison. Default: the
   * `gpusPerReplica` of the first dedicated option, else 1. */
  dedicatedGpusPerReplica?: number;
}

/**
 * Where the planner put one service.
 *
 * @public
 */
export interface PlanAssignment extends PlannerOption {
  service: string;
  replicas: number;
  /** For each replica, the indices of the GPUs it uses within its pool (node = index / gpusPerNode). */
  gpus: number[][];
  /** Index into the service's options of the option used (0 = its first choice). */
  optionIndex: number;
}

/**
 * A service the planner could not place, and why.
 *
 * @public
 */
export interface UnplacedService {
  service: string;
  reason: string;
}

/**
 * GPU counts per pool and in total.
 *
 * @public
 */
export interface GpuCount {
  total: number;
  byPool: Record<string, number>;
}

/**
 * The result of packing many services onto the pools' physical GPUs.
 *
 * @public
 */
export interface PlacementPlan {
  assignments: PlanAssignment[];
  unplaced: UnplacedService[];
  /** Physical GPUs that hold at least one replica. */
  gpusUsed: GpuCount;
  /**
   * Bin-packing lower bound for the chosen slices: per pool the largest of ceil(total GPU share), ceil(total memory
   * / card memory) and, on MIG pools, ceil(memory slices / memory slices per GPU); summed over pools.
   */
  lowerBound: GpuCount;
  /** gpusUsed.total / lowerBound.total (1 when nothing was placed). */
  ratio: number;
  /** GPUs the placed services would need if every replica ran on whole GPUs. */
  allDedicatedGpus: number;
  /** allDedicatedGpus - gpusUsed.total. */
  gpusSaved: number;
  /**
   * The MIG layouts the plan needs, per pool: which profiles each used GPU holds and on how many GPUs. The planner
   * mixes the pool's profiles per GPU, so a pool whose nodes all share one `nvidia.com/mig.config` layout needs a
   * mig-parted config per layout listed here to realise the plan.
   */
  migLayouts: Array<{
    pool: string;
    layout: Record<string, number>;
    gpus: number;
  }>;
}
