import {
  heldCost,
  PoolPrice,
  UsdMicros,
} from '@internal/backstage-plugin-gpu-common';
import type { ReservationRecord } from '../database/types';

/** Allocation of a service over a time range, from its reservations. */
export interface AllocationInRange {
  allocationMicros: UsdMicros;
  /** Hours some reservation was held within the range. */
  hours: number;
  /** On spot pools: on-demand cost of the same holding minus the spot cost. */
  spotSavingMicros: UsdMicros;
  /** GPU-equivalents held at the end of the range (0 if none). */
  gpuEquivalentsAtEnd: number;
}

/**
 * Allocation cost within `[startMs, endMs)`: for every reservation, the overlap of its held period with the range x
 * GPU-equivalents x the pool's node-hour price / GPUs per node, rounded once per reservation to micro-dollars.
 * Reservations of unknown pools (removed from config) cost nothing and are skipped.
 */
export function allocationInRange(
  reservations: ReservationRecord[],
  prices: ReadonlyMap<string, PoolPrice>,
  startMs: number,
  endMs: number,
): AllocationInRange {
  let allocationMicros = 0;
  let spotSavingMicros = 0;
  let heldMs = 0;
  let gpuEquivalentsAtEnd = 0;
  const periods: Array<[number, number]> = [];
  for (const reservation of reservations) {
    if (!reservation.heldAt) continue;
    const from = Math.max(startMs, Date.parse(reservation.heldAt));
    const releasedMs = reservation.releasedAt
      ? Date.parse(reservation.releasedAt)
      : Infinity;
    const to = Math.min(endMs, releasedMs);
    if (releasedMs >= endMs && Date.parse(reservation.heldAt) < endMs) {
      gpuEquivalentsAtEnd += reservation.gpuEquivalents;
    }
    const price = prices.get(reservation.pool);
    if (to <= from || !price) continue;
    const seconds = Math.round((to - from) / 1000);
    periods.push([from, to]);
    const cost = heldCost(price, reservation.gpuEquivalents, seconds);
    allocationMicros += cost;
    if (price.onDemand) {
      spotSavingMicros +=
        heldCost(price.onDemand, reservation.gpuEquivalents, seconds) - cost;
    }
  }
  periods.sort((a, b) => a[0] - b[0]);
  let coveredTo = -Infinity;
  for (const [from, to] of periods) {
    const begin = Math.max(from, coveredTo);
    if (to > begin) heldMs += to - begin;
    coveredTo = Math.max(coveredTo, to);
  }
  return {
    allocationMicros,
    hours: heldMs / 3_600_000,
    spotSavingMicros,
    gpuEquivalentsAtEnd,
  };
}

/** Monthly allocation at the holding of `atMs`: sum of the monthly cost of the reservations held then. */
export function monthlyAllocationAt(
  reservations: ReservationRecord[],
  atMs: number,
): UsdMicros {
  return reservations
    .filter(
      r =>
        r.heldAt &&
        Date.parse(r.heldAt) <= atMs &&
        (!r.releasedAt || Date.parse(r.releasedAt) > atMs),
    )
    .reduce((total, r) => total + r.monthlyCostMicros, 0);
}
