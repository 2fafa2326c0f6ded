import type {
  MonthSpend,
  PoolHeldUnits,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { LedgerSnapshot } from './types';

/**
 * Everything admission decides on, read at once under the ledger's locks (the team's quota row, the pool's lock):
 * the team's quota and what it holds on the pool, its spend this month, and what every team holds on the pool. A
 * change's snapshot leaves out the reservation it gives back.
 */
export interface AdmissionSnapshot {
  ledger: LedgerSnapshot;
  month: MonthSpend;
  poolHeld: PoolHeldUnits;
  /** When it was read; month spend and projections count from it. */
  now: Date;
}
