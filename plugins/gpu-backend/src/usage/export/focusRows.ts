import {
  GroupHierarchy,
  groupAncestors,
  Platform,
  PoolPrice,
  poolCostSplit,
  teamGroupRef,
  UsdMicros,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { ReservationRecord } from '../../database/types';
import type {
  BatchJobAllocation,
  ServiceAllocation,
} from '../AllocationReader';
import { allocationInRange } from '../allocation';
import type { ExportPeriod } from './exportPeriod';

/**
 * What a row of the export charges for:
 * - `allocated`: a service's held GPUs while its workload ran, or a batch job's for as long as it held them, what the
 *   team's cost and budget count;
 * - `reserved`: a service's held GPUs while nothing ran (a dry run, a workload waiting or stopped), not spend of the
 *   team but capacity nobody else could use;
 * - `stranded`: what a pool's MIG layout leaves unusable;
 * - `unallocated`: the rest of the pool, held by nobody.
 */
export type FocusCharge = 'allocated' | 'reserved' | 'stranded' | 'unallocated';

/**
 * One row of the FOCUS export: one service, one batch job, or one pool's stranded or unallocated capacity, on one UTC
 * day.
 */
export interface FocusRow {
  chargePeriodStart: string;
  chargePeriodEnd: string;
  /** BilledCost and EffectiveCost (no commitment discounts are amortised: they are the same). */
  costMicros: UsdMicros;
  charge: FocusCharge;
  chargeDescription: string;
  /** The service's id, the batch job's batch id, or `pool/<pool>/<charge>` for a pool's rows. */
  resourceId: string;
  resourceName: string;
  resourceType: 'GPU model service' | 'GPU batch job' | 'GPU pool';
  /** The team charged; absent on a pool's rows. */
  team?: string;
  tags: Record<string, string>;
}

/** An export: the days it covers (`yyyy-MM-dd`, both included) and its rows. */
export interface CostExport {
  firstDay: string;
  lastDay: string;
  rows: FocusRow[];
}

const DESCRIPTIONS: Record<FocusCharge, string> = {
  allocated: 'GPUs held while the workload ran',
  reserved: 'GPUs held while no workload ran (not spend of the team)',
  stranded: "Capacity the pool's MIG layout leaves unusable",
  unallocated: 'Pool capacity held by no service or batch job',
};

/**
 * The daily rows of `period`: for each day and pool (in config order), each service's allocated and reserved cost
 * on that pool (the ledger's `allocationInRange`, as the daily snapshots and the team's month to date compute it),
 * then the pool's stranded capacity (gpu-common `poolCostSplit` over 24 hours) and its unallocated rest. The rows of
 * a pool and day add up to maxNodes x node-hour price x 24 to the micro-dollar: the unallocated row is what the
 * others leave of it (negative, and tagged `oversubscribed`, if reservations held more than the pool has).
 * Reservations on pools no longer configured have no price and no row.
 *
 * Service rows are tagged with the team, environment, tier, pool and `groups`: the team's catalog Group and its
 * ancestors, nearest first, for roll-ups through the hierarchy.
 *
 * A batch job's row (after the services of its pool) charges its held GPUs from its reservation's start to its
 * release (or the end of the day) at the pool's price, all `allocated` (a Job holds its GPUs while it waits or runs),
 * tagged with the team, environment, pool, `kind: batch-job` and `groups`; the unallocated row leaves it out too.
 */
export function focusRows(options: {
  platform: Platform;
  prices: ReadonlyMap<string, PoolPrice>;
  allocations: readonly ServiceAllocation[];
  /** Batch jobs with their reservations; none by default. */
  batchJobs?: readonly BatchJobAllocation[];
  period: ExportPeriod;
  hierarchy: GroupHierarchy;
}): FocusRow[] {
  const { platform, prices, allocations, period, hierarchy } = options;
  const jobsByPool = new Map<string, BatchJobAllocation[]>();
  for (const job of options.batchJobs ?? []) {
    const list = jobsByPool.get(job.batchJob.pool) ?? [];
    list.push(job);
    jobsByPool.set(job.batchJob.pool, list);
  }
  const dayPlatform = { ...platform, hoursPerMonth: 24 };
  const groupsOf = new Map<string, string>();
  const groupTag = (team: string) => {
    let tag = groupsOf.get(team);
    if (tag === undefined) {
      const ref = teamGroupRef(team);
      tag = [ref, ...groupAncestors(hierarchy, ref)].join(',');
      groupsOf.set(team, tag);
    }
    return tag;
  };
  const byPool = new Map<
    string,
    Array<{ allocation: ServiceAllocation; reservations: ReservationRecord[] }>
  >();
  for (const allocation of allocations) {
    const pools = new Map<string, ReservationRecord[]>();
    for (const reservation of allocation.reservations) {
      const list = pools.get(reservation.pool);
      if (list) list.push(reservation);
      else pools.set(reservation.pool, [reservation]);
    }
    for (const [pool, reservations] of pools) {
      const list = byPool.get(pool) ?? [];
      list.push({ allocation, reservations });
      byPool.set(pool, list);
    }
  }

  const rows: FocusRow[] = [];
  for (const day of period.days) {
    const startMs = day.toMillis();
    const endMs = day.plus({ days: 1 }).toMillis();
    const chargePeriod = {
      chargePeriodStart: day.toISO({ suppressMilliseconds: true })!,
      chargePeriodEnd: day
        .plus({ days: 1 })
        .toISO({ suppressMilliseconds: true })!,
    };
    for (const pool of platform.pools) {
      if (!prices.has(pool.name)) continue;
      const capacity = poolCostSplit(dayPlatform, pool, 0);
      let held = 0;
      for (const { allocation, reservations } of byPool.get(pool.name) ?? []) {
        const { service, spending } = allocation;
        const cost = allocationInRange(
          reservations,
          prices,
          startMs,
          endMs,
          spending,
        );
        const tags = {
          team: service.team,
          environment: service.environment,
          tier: service.tier,
          pool: pool.name,
          groups: groupTag(service.team),
        };
        for (const [charge, costMicros] of [
          ['allocated', cost.allocationMicros],
          ['reserved', cost.reservedMicros],
        ] as const) {
          if (costMicros === 0) continue;
          held += costMicros;
          rows.push({
            ...chargePeriod,
            costMicros,
            charge,
            chargeDescription: DESCRIPTIONS[charge],
            resourceId: service.id,
            resourceName: service.name,
            resourceType: 'GPU model service',
            team: service.team,
            tags: { ...tags, charge },
          });
        }
      }
      for (const { batchJob, reservations } of jobsByPool.get(pool.name) ??
        []) {
        const costMicros = allocationInRange(
          reservations.filter(r => r.pool === pool.name),
          prices,
          startMs,
          endMs,
        ).allocationMicros;
        if (costMicros === 0) continue;
        held += costMicros;
        rows.push({
          ...chargePeriod,
          costMicros,
          charge: 'allocated',
          chargeDescription: 'GPUs held by the batch job',
          resourceId: batchJob.id,
          resourceName: batchJob.name,
          resourceType: 'GPU batch job',
          team: batchJob.team,
          tags: {
            team: batchJob.team,
            environment: batchJob.environment,
            pool: pool.name,
            kind: 'batch-job',
            groups: groupTag(batchJob.team),
            charge: 'allocated',
          },
        });
      }
      const poolRow = (
        charge: FocusCharge,
        costMicros: UsdMicros,
      ): FocusRow => ({
        ...chargePeriod,
        costMicros,
        charge,
        chargeDescription: DESCRIPTIONS[charge],
        resourceId: `pool/${pool.name}/${charge}`,
        resourceName: pool.name,
        resourceType: 'GPU pool',
        tags: { pool: pool.name, charge },
      });
      if (capacity.strandedMicros > 0) {
        rows.push(poolRow('stranded', capacity.strandedMicros));
      }
      const unallocated =
        capacity.capacityMicros - capacity.strandedMicros - held;
      const row = poolRow('unallocated', unallocated);
      if (unallocated < 0) row.tags = { ...row.tags, oversubscribed: 'true' };
      rows.push(row);
    }
  }
  return rows;
}
