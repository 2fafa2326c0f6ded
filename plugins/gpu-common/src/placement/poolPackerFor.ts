import { GpuDomainError } from '../errors';
import { findGpuModel } from '../platform/lookups';
import { GpuModel, Platform, Pool, SharingTier } from '../platform/types';
import { GIB } from '../sizing/units';
import { poolTier } from '../tiers/poolTier';
import { migMemorySlices, migMemorySlicesPerGpu } from './migMemorySlices';
import { PoolPacker, SliceDemand } from './PoolPacker';
import { SlicedGpuCapacity, slicedGpuPacker } from './slicedGpuPacker';
import { PlannerOption } from './types';
import { wholeGpuPacker } from './wholeGpuPacker';

/** A pool ready for packing: its packer and what a replica of an option takes from it. */
export interface PackedPool {
  pool: Pool;
  tier: SharingTier;
  packer: PoolPacker;
  /** What one replica of `option` takes from one GPU; throws when the option does not belong to the pool. */
  demandOf(option: PlannerOption): SliceDemand;
  /** Physical GPU share of a demand (units / units per GPU), for the lower bound. */
  unitsPerGpu: number;
  memorySlicesPerGpu: number;
  cardBytes: number;
  /** A MIG pool's GPU capacity and GPU count, for repacking its replicas (`repackMigPool`). */
  mig?: { capacity: SlicedGpuCapacity; maxGpus: number };
}

/**
 * Prepares a pool for packing: dedicated pools pack whole GPUs per node, MIG pools compute and memory slices,
 * MPS and time-slicing pools R replicas per GPU.
 */
export function poolPackerFor(platform: Platform, pool: Pool): PackedPool {
  const gpu = findGpuModel(platform, pool.gpuModel);
  const tier = poolTier(pool);
  const cardBytes = gpu.memoryGiB * GIB;
  const sharing = pool.sharing;
  const maxGpus = pool.maxNodes * pool.gpusPerNode;

  if (sharing.type === 'none') {
    return {
      pool,
      tier,
      packer: wholeGpuPacker(pool.gpusPerNode, pool.maxNodes),
      demandOf: option => {
        checkTier(pool, tier, option);
        return {
          units: option.gpusPerReplica,
          memorySlices: 0,
          memoryBytes: 0,
        };
      },
      unitsPerGpu: 1,
      memorySlicesPerGpu: 0,
      cardBytes,
    };
  }
  if (sharing.type === 'mig') {
    const memorySlicesPerGpu = migMemorySlicesPerGpu(gpu);
    const capacity: SlicedGpuCapacity = {
      units: gpu.migComputeSlices,
      memorySlices: memorySlicesPerGpu,
      memoryBytes: cardBytes,
      maxInstances: Object.fromEntries(
        gpu.migProfiles.map(p => [p.name, p.maxInstances]),
      ),
    };
    return {
      pool,
      tier,
      packer: slicedGpuPacker(capacity, maxGpus),
      demandOf: option => migDemand(pool, gpu, tier, option),
      unitsPerGpu: gpu.migComputeSlices,
      memorySlicesPerGpu,
      cardBytes,
      mig: { capacity, maxGpus },
    };
  }
  return {
    pool,
    tier,
    packer: slicedGpuPacker(
      {
        units: sharing.replicas,
        memorySlices: 0,
        memoryBytes: cardBytes,
        maxInstances: {},
      },
      maxGpus,
    ),
    demandOf: option => {
      checkTier(pool, tier, option);
      return { units: 1, memorySlices: 0, memoryBytes: option.memoryBytes };
    },
    unitsPerGpu: sharing.replicas,
    memorySlicesPerGpu: 0,
    cardBytes,
  };
}

function checkTier(pool: Pool, tier: SharingTier, option: PlannerOption): void {
  if (option.tier !== tier) {
    throw new GpuDomainError(
      'UNKNOWN_TIER',
      `Pool ${pool.name} offers the ${tier} tier, not ${option.tier}`,
      { allowed: [tier] },
    );
  }
}

function migDemand(
  pool: Pool,
  gpu: GpuModel,
  tier: SharingTier,
  option: PlannerOption,
): SliceDemand {
  checkTier(pool, tier, option);
  const profile = gpu.migProfiles.find(p => p.name === option.migProfile);
  if (!profile) {
    const allowed = gpu.migProfiles.map(p => p.name);
    throw new GpuDomainError(
      'UNKNOWN_TIER',
      `Pool ${pool.name} (${gpu.name}) has no MIG profile "${
        option.migProfile ?? ''
      }"; allowed: ${allowed.join(', ')}`,
      { allowed },
    );
  }
  return {
    units: profile.computeSlices,
    memorySlices: migMemorySlices(gpu, profile),
    memoryBytes: option.memoryBytes,
    migProfile: profile.name,
  };
}
