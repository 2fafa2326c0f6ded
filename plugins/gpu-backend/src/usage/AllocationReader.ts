import { Knex } from 'knex';
import { ReservationRecord, ServiceRecord, ServiceStatus } from '../database';
import {
  ReservationRow,
  ServiceRow,
  toReservationRecord,
  toServiceRecord,
} from '../database/rows';

/** A service with its whole reservation history: what allocation cost is computed from. */
export interface ServiceAllocation {
  service: ServiceRecord;
  reservations: ReservationRecord[];
}

const CHUNK = 500;

/** Statuses whose services never held GPUs. */
const NEVER_HELD: ServiceStatus[] = ['rejected', 'pending-approval'];

/**
 * Reads services and their reservations in two queries whatever their number (the overview reads every service).
 * Read-only over the tables of the service store.
 */
export class AllocationReader {
  constructor(private readonly db: Knex) {}

  /** One service by id; undefined when unknown. */
  async get(serviceId: string): Promise<ServiceAllocation | undefined> {
    const [found] = await this.list({ ids: [serviceId] });
    return found;
  }

  /**
   * Services that may have held GPUs, optionally of one team or with given ids, with their reservations. Deleted
   * services are included (their cost within a window still counts).
   */
  async list(
    filter: { team?: string; ids?: string[] } = {},
  ): Promise<ServiceAllocation[]> {
    let query = this.db<ServiceRow>('services').whereNotIn(
      'status',
      NEVER_HELD,
    );
    if (filter.team) query = query.where({ team: filter.team });
    if (filter.ids) query = query.whereIn('id', filter.ids);
    const services = (await query.orderBy(['team', 'name', 'id'])).map(
      toServiceRecord,
    );
    const ids = services.map(s => s.id);
    const reservations = new Map<string, ReservationRecord[]>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await this.db<ReservationRow>('reservations')
        .whereIn('service_id', ids.slice(i, i + CHUNK))
        .whereNotNull('held_at');
      for (const row of rows) {
        const record = toReservationRecord(row);
        const list = reservations.get(record.serviceId);
        if (list) list.push(record);
        else reservations.set(record.serviceId, [record]);
      }
    }
    return services.map(service => ({
      service,
      reservations: reservations.get(service.id) ?? [],
    }));
  }
}
