import { SharingTier } from '../platform/types';
import { Isolation } from './types';

/**
 * Isolation of a tier: dedicated `full`, MIG `hardware`, MPS `capped` (1/R of memory and threads), time-sliced
 * `none`.
 *
 * @public
 */
export function tierIsolation(tier: SharingTier): Isolation {
  switch (tier) {
    case 'dedicated':
      return 'full';
    case 'mig':
      return 'hardware';
    case 'mps':
      return 'capped';
    case 'time-sliced':
      return 'none';
    default:
      throw new Error(`Unknown sharing tier ${tier}`);
  }
}
