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

/** Daily cost snapshots in the plugin database (table from migration 20261129120000_cost_snapshots). */
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
}
