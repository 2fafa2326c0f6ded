import {
  Platform,
  PoolCostSplit,
  poolCostSplit,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { ReservationRecord } from '../database/types';
import { toGpuUnits } from '../database/units';

/**
 * Every pool's monthly capacity cost split into allocated (what the reservations held now take, in GPU units, of
 * services and batch jobs alike), stranded (what its MIG layout leaves unused) and unallocated, adding up to maxNodes
 * x node price exactly (gpu-common `poolCostSplit`), in pool order.
 */
export function poolCosts(
  platform: Platform,
  allocations: ReadonlyArray<{ reservations: readonly ReservationRecord[] }>,
): PoolCostSplit[] {
  const held = new Map<string, number>();
  for (const { reservations } of allocations) {
    for (const reservation of reservations) {
      if (reservation.state !== 'held') continue;
      held.set(
        reservation.pool,
        (held.get(reservation.pool) ?? 0) +
          toGpuUnits(reservation.gpuEquivalents, 'reservation'),
      );
    }
  }
  return platform.pools.map(pool =>
    poolCostSplit(platform, pool, held.get(pool.name) ?? 0),
  );
}
