import { Pool, SharingTier } from '../platform/types';

/**
 * The sharing tier a pool offers: none is `dedicated`, mig is `mig`, mps is `mps`, time-slicing is `time-sliced`.
 *
 * @public
 */
export function poolTier(pool: Pick<Pool, 'sharing'>): SharingTier {
  switch (pool.sharing.type) {
    case 'none':
      return 'dedicated';
    case 'mig':
      return 'mig';
    case 'mps':
      return 'mps';
    case 'time-slicing':
      return 'time-sliced';
    default:
      throw new Error(`Unknown sharing type in pool`);
  }
}
