import { Pool } from '../platform/types';
import {
  DRA_GPU_RESOURCE,
  DRA_MIG_DEVICES_RESOURCE,
  DYNAMIC_MIG_RESOURCE,
} from './draDeviceClasses';

/**
 * The container resource a replica on `pool` requests: `nvidia.com/mig-<profile>` on a MIG pool (mixed strategy),
 * `nvidia.com/gpu.shared` on an MPS or time-slicing pool with `renameByDefault`, `nvidia.com/gpu` otherwise. On a
 * DRA pool, the resource Kueue charges its claims in: `DYNAMIC_MIG_RESOURCE` (SMs) on a dynamic MIG pool,
 * `DRA_MIG_DEVICES_RESOURCE` on a static MIG pool, `DRA_GPU_RESOURCE` otherwise.
 *
 * @public
 */
export function resourceNameFor(
  pool: Pick<Pool, 'name' | 'sharing' | 'renameByDefault' | 'allocation'>,
  migProfile?: string,
): string {
  if (pool.allocation.backend === 'dra') {
    if (pool.sharing.type !== 'mig') return DRA_GPU_RESOURCE;
    return pool.sharing.partitioning === 'dynamic'
      ? DYNAMIC_MIG_RESOURCE
      : DRA_MIG_DEVICES_RESOURCE;
  }
  switch (pool.sharing.type) {
    case 'mig':
      if (!migProfile) {
        throw new Error(
          `Pool ${pool.name} is a MIG pool; name the MIG profile of the resource`,
        );
      }
      return `nvidia.com/mig-${migProfile}`;
    case 'mps':
    case 'time-slicing':
      return pool.renameByDefault ? 'nvidia.com/gpu.shared' : 'nvidia.com/gpu';
    default:
      return 'nvidia.com/gpu';
  }
}
