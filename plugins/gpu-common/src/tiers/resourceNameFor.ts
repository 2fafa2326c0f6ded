import { Pool } from '../platform/types';

/**
 * The container resource a replica on `pool` requests: `nvidia.com/mig-<profile>` on a MIG pool (mixed strategy),
 * `nvidia.com/gpu.shared` on an MPS or time-slicing pool with `renameByDefault`, `nvidia.com/gpu` otherwise.
 *
 * @public
 */
export function resourceNameFor(
  pool: Pick<Pool, 'name' | 'sharing' | 'renameByDefault'>,
  migProfile?: string,
): string {
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
