import { Knex } from 'knex';
import { readInteger } from '../database/units';

/** One stored day of a service's cost. */
export interface CostSnapshot {
  serviceId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  team: string;
  pool: string;
  tier: string;
  allocationMicros: number;
  usageMicros?: number;
  idleMicros?: number;
  utilisation?: number;
  method?: string;
  generatedTokens?: number;
}

/**
 * One stored day of a batch job's cost: what its reservation held that day at the pool's price (all of it spend; a
 * batch job's utilisation is not measured), and the GPU-hours that is.
 */
export interface BatchJobCostSnapshot {
  batchId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  team: string;
  pool: string;
  gpuHours: number;
  allocationMicros: number;
}

interface BatchJobSnapshotRow {
  batch_job_id: string;
  day: string;
  team: string;
  pool: string;
  gpu_hours: number | string;
  allocation_micros: number | string;
  created_at: Date | string;
}

interface SnapshotRow {
  service_id: string;
  day: string;
  team: string;
  pool: string;
  tier: string;
  allocation_micros: number | string;
  usage_micros: number | string | null;
  idle_micros: number | string | null;
  utilisation: number | null;
  method: string | null;
  generated_tokens: number | null;
  created_at: Date | string;
}

const optional = <T>(value: T | null): T | undefined =>
  value === null ? undefined : value;

function toSnapshot(row: SnapshotRow): CostSnapshot {
  return {
    serviceId: row.service_id,
    day: row.day,
    team: row.team,
    pool: row.pool,
    tier: row.tier,
    allocationMicros: readInteger(row.allocation_micros),
    usageMicros:
      row.usage_micros === null ? undefined : readInteger(row.usage_micros),
    idleMicros:
      row.idle_micros === null ? undefined : readInteger(row.idle_micros),
    utilisation: optional(row.utilisation),
    method: optional(row.method),
    generatedTokens: optional(row.generated_tokens),
  };
}

/** SQLite and PostgreSQL limit bound parameters; keep `IN` lists and batches below both. */
const CHUNK = 500;

/**
 * Daily cost snapshots in the plugin database: services' (table from migration 20261129120000_cost_snapshots) and
 * batch jobs' (20261203193000_batch_job_cost_snapshots).
 */
export class CostSnapshotStore {
  constructor(private readonly db: Knex) {}

  /** Snapshots of the given services (all when omitted) for days from `fromDay` to `toDay` inclusive. */
  async list(options: {
    serviceIds?: string[];
    fromDay: string;
    toDay: string;
  }): Promise<CostSnapshot[]> {
    const { serviceIds, fromDay, toDay } = options;
    const query = () =>
      this.db<SnapshotRow>('cost_snapshots')
        .where('day', '>=', fromDay)
        .andWhere('day', '<=', toDay)
        .orderBy([{ column: 'day' }, { column: 'service_id' }]);
    if (!serviceIds) {
      return (await query()).map(toSnapshot);
    }
    const rows: SnapshotRow[] = [];
    for (let i = 0; i < serviceIds.length; i += CHUNK) {
      rows.push(
        ...(await query().whereIn(
          'service_id',
          serviceIds.slice(i, i + CHUNK),
        )),
      );
    }
    return rows.map(toSnapshot);
  }

  /**
   * Stores snapshots, idempotent per service and day: a day already stored is left alone unless it lacked usage
   * (metrics were unavailable) and the new snapshot has it. Returns how many rows were written.
   */
  async save(
    snapshots: CostSnapshot[],
    now: Date = new Date(),
  ): Promise<number> {
    let written = 0;
    for (let i = 0; i < snapshots.length; i += CHUNK) {
      const batch = snapshots.slice(i, i + CHUNK);
      written += await this.db.transaction(async tx => {
        const existing = new Map<string, SnapshotRow>();
        const days = [...new Set(batch.map(s => s.day))];
        const rows = await tx<SnapshotRow>('cost_snapshots')
          .whereIn('day', days)
          .whereIn('service_id', [...new Set(batch.map(s => s.serviceId))]);
        for (const row of rows)
          existing.set(`${row.service_id}/${row.day}`, row);
        let count = 0;
        for (const snapshot of batch) {
          const row = {
            service_id: snapshot.serviceId,
            day: snapshot.day,
            team: snapshot.team,
            pool: snapshot.pool,
            tier: snapshot.tier,
            allocation_micros: snapshot.allocationMicros,
            usage_micros: snapshot.usageMicros ?? null,
            idle_micros: snapshot.idleMicros ?? null,
            utilisation: snapshot.utilisation ?? null,
            method: snapshot.method ?? null,
            generated_tokens: snapshot.generatedTokens ?? null,
            created_at: now,
          };
          const stored = existing.get(`${snapshot.serviceId}/${snapshot.day}`);
          if (!stored) {
            await tx('cost_snapshots')
              .insert(row)
              .onConflict(['service_id', 'day'])
              .ignore();
            count += 1;
          } else if (
            stored.usage_micros === null &&
            snapshot.usageMicros !== undefined
          ) {
            await tx('cost_snapshots')
              .where({ service_id: snapshot.serviceId, day: snapshot.day })
              .whereNull('usage_micros')
              .update(row);
            count += 1;
          }
        }
        return count;
      });
    }
    return written;
  }

  /** Snapshots of batch jobs (of one team when given) for days from `fromDay` to `toDay` inclusive, by day and id. */
  async listBatchJobs(options: {
    team?: string;
    fromDay: string;
    toDay: string;
  }): Promise<BatchJobCostSnapshot[]> {
    let query = this.db<BatchJobSnapshotRow>('batch_job_cost_snapshots')
      .where('day', '>=', options.fromDay)
      .andWhere('day', '<=', options.toDay);
    if (options.team) query = query.where({ team: options.team });
    const rows = await query.orderBy([
      { column: 'day' },
      { column: 'batch_job_id' },
    ]);
    return rows.map(row => ({
      batchId: row.batch_job_id,
      day: row.day,
      team: row.team,
      pool: row.pool,
      gpuHours: Number(row.gpu_hours),
      allocationMicros: readInteger(row.allocation_micros),
    }));
  }

  /**
   * Stores batch jobs' snapshots, idempotent per batch job and day: a day already stored is left alone (a day that is
   * over does not change in the ledger). Returns how many rows were written.
   */
  async saveBatchJobs(
    snapshots: BatchJobCostSnapshot[],
    now: Date = new Date(),
  ): Promise<number> {
    let written = 0;
    for (let i = 0; i < snapshots.length; i += CHUNK) {
      const batch = snapshots.slice(i, i + CHUNK);
      written += await this.db.transaction(async tx => {
        const stored = new Set(
          (
            await tx<BatchJobSnapshotRow>('batch_job_cost_snapshots')
              .whereIn('day', [...new Set(batch.map(s => s.day))])
              .whereIn('batch_job_id', [...new Set(batch.map(s => s.batchId))])
              .select('batch_job_id', 'day')
          ).map(row => `${row.batch_job_id}/${row.day}`),
        );
        const rows = batch
          .filter(s => !stored.has(`${s.batchId}/${s.day}`))
          .map(s => ({
            batch_job_id: s.batchId,
            day: s.day,
            team: s.team,
            pool: s.pool,
            gpu_hours: s.gpuHours,
            allocation_micros: s.allocationMicros,
            created_at: now,
          }));
        for (const row of rows) {
          await tx('batch_job_cost_snapshots')
            .insert(row)
            .onConflict(['batch_job_id', 'day'])
            .ignore();
        }
        return rows.length;
      });
    }
    return written;
  }
}
