import { AccrualBasis } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  BatchJobRecord,
  ReservationRecord,
  ServiceRecord,
  ServiceStatus,
} from '../database';
import { listBatchJobAllocations } from '../database/batchJobs';
import { listRunPeriods, RunPeriod } from '../database/runPeriods';
import { accrualBasisOf, Interval, spendingIntervals } from './accrual';
import {
  ReservationRow,
  ServiceRow,
  toReservationRecord,
  toServiceRecord,
} from '../database/rows';

/** A service with its whole reservation and run history: what allocation cost is computed from. */
export interface ServiceAllocation {
  service: ServiceRecord;
  reservations: ReservationRecord[];
  /** What its cost accrues over (from its mode). */
  basis: AccrualBasis;
  /** When its workload ran, as its cluster said (apply mode), oldest first. */
  runs: RunPeriod[];
  /** When a held reservation of it is spend (the rest is reserved): sorted disjoint intervals. */
  spending: readonly Interval[];
}

/** A batch job with its reservations: it is charged for as long as it held them (all of it allocated). */
export interface BatchJobAllocation {
  batchJob: BatchJobRecord;
  reservations: ReservationRecord[];
}

const CHUNK = 500;

const SERVICE_COLUMNS: Array<keyof ServiceRow> = [
  'id',
  'name',
  'team',
  'namespace',
  'entity_ref',
  'environment',
  'tier',
  'pool',
  'status',
  'status_reason',
  'request',
  'placement',
  'cluster',
  'mode',
  'request_key',
  'created_by',
  'created_at',
  'updated_by',
  'updated_at',
];

/** Statuses whose services never held GPUs. */
const NEVER_HELD: ServiceStatus[] = ['rejected', 'pending-approval'];

/**
 * Reads services, their reservations and run periods in three queries whatever their number (the overview reads every service).
 * Read-only over the tables of the service store.
 */
export class AllocationReader {
  constructor(private readonly db: Knex) {}

  /**
   * One service by id, whatever its status: a service waiting for approval or rejected is known and costs nothing
   * (no reservation was held). Undefined when unknown.
   */
  async get(serviceId: string): Promise<ServiceAllocation | undefined> {
    const [found] = await this.read({ ids: [serviceId] }, true);
    return found;
  }

  /**
   * Batch jobs whose reservation overlaps [from, to) (an indexed read: those finished before `from` are not read),
   * optionally of one team, with the reservations they held.
   */
  async batchJobs(filter: {
    team?: string;
    from: Date;
    to: Date;
  }): Promise<BatchJobAllocation[]> {
    const { team, from, to } = filter;
    return listBatchJobAllocations(this.db, {
      ...(team ? { team } : {}),
      overlapping: { from, to },
    });
  }

  /**
   * Services that may have held GPUs, optionally of one team or with given ids, with their reservations. Deleted
   * services are included (their cost within a window still counts).
   */
  async list(
    filter: { team?: string; ids?: string[] } = {},
  ): Promise<ServiceAllocation[]> {
    return this.read(filter, false);
  }

  private async read(
    filter: { team?: string; ids?: string[] },
    includeNeverHeld: boolean,
  ): Promise<ServiceAllocation[]> {
    // Rendered manifests and quotes can be large and cost nothing here: leave them out.
    let query = this.db<ServiceRow>('services').select(SERVICE_COLUMNS);
    if (!includeNeverHeld) query = query.whereNotIn('status', NEVER_HELD);
    if (filter.team) query = query.where({ team: filter.team });
    if (filter.ids) query = query.whereIn('id', filter.ids);
    const rows = (await query.orderBy(['team', 'name', 'id'])) as Array<
      Omit<ServiceRow, 'manifests' | 'quote'>
    >;
    const services = rows.map(row =>
      toServiceRecord({ ...row, manifests: null, quote: null }),
    );
    const ids = services.map(s => s.id);
    const reservations = new Map<string, ReservationRecord[]>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const held = await this.db<ReservationRow>('reservations')
        .whereIn('service_id', ids.slice(i, i + CHUNK))
        .whereNotNull('held_at');
      for (const row of held) {
        const record = toReservationRecord(row);
        const list = reservations.get(record.serviceId);
        if (list) list.push(record);
        else reservations.set(record.serviceId, [record]);
      }
    }
    const runs = await listRunPeriods(this.db, ids);
    return services.map(service => {
      const basis = accrualBasisOf(service.mode);
      const serviceRuns = runs.get(service.id) ?? [];
      return {
        service,
        reservations: reservations.get(service.id) ?? [],
        basis,
        runs: serviceRuns,
        spending: spendingIntervals(basis, serviceRuns),
      };
    });
  }
}
