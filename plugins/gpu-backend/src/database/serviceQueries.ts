import { Knex } from 'knex';
import {
  ApprovalRow,
  ReservationRow,
  ServiceRow,
  toApprovalRecord,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import { pendingChangesOf } from './serviceChanges';
import { isUuid } from './services';
import { ListServicesFilter, ServiceListing, ServiceRecord } from './types';

export async function getService(
  db: Knex,
  id: string,
): Promise<ServiceRecord | undefined> {
  if (!isUuid(id)) {
    return undefined;
  }
  const row = await db<ServiceRow>('services').where({ id }).first();
  return row ? toServiceRecord(row) : undefined;
}

export async function listServices(
  db: Knex,
  filter: ListServicesFilter = {},
): Promise<ServiceRecord[]> {
  const rows = await servicesQuery(db, filter).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'asc' },
  ]);
  return rows.map(toServiceRecord);
}

/** Services with their reservations, approvals and pending changes, in four queries whatever the number of services. */
export async function listServicesWithReservations(
  db: Knex,
  filter: ListServicesFilter = {},
): Promise<ServiceListing[]> {
  const services = await listServices(db, filter);
  if (services.length === 0) {
    return [];
  }
  // The filter again as a subquery: no bound parameter per service, whatever the list's length.
  return withLedger(db, services, servicesQuery(db, filter).select('id'));
}

/**
 * The services with their reservations (newest first), approvals (oldest first) and pending changes, in three more
 * queries; `ids` selects the same services, as a list or a subquery.
 */
export async function withLedger(
  db: Knex,
  services: ServiceRecord[],
  ids: string[] | Knex.QueryBuilder,
): Promise<ServiceListing[]> {
  const [reservationRows, approvalRows, pendingChanges] = await Promise.all([
    db<ReservationRow>('reservations')
      .whereIn('service_id', ids)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'asc' },
      ]),
    db<ApprovalRow>('approvals')
      .whereIn('service_id', ids)
      .orderBy([
        { column: 'requested_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ]),
    pendingChangesOf(db, Array.isArray(ids) ? ids : undefined),
  ]);
  const listings = new Map<string, ServiceListing>(
    services.map(service => [
      service.id,
      { service, reservations: [], approvals: [] },
    ]),
  );
  // A service created between the queries is not listed; its rows are skipped.
  for (const row of reservationRows) {
    listings
      .get(row.service_id ?? '')
      ?.reservations.push(toReservationRecord(row));
  }
  for (const row of approvalRows) {
    listings.get(row.service_id)?.approvals.push(toApprovalRecord(row));
  }
  for (const [serviceId, change] of pendingChanges) {
    const listing = listings.get(serviceId);
    if (listing) listing.pendingChange = change;
  }
  return [...listings.values()];
}

function servicesQuery(db: Knex, filter: ListServicesFilter) {
  const query = db<ServiceRow>('services');
  if (filter.ids !== undefined) {
    query.whereIn('id', filter.ids.filter(isUuid));
  }
  if (filter.team !== undefined) {
    query.whereIn('team', asArray(filter.team));
  }
  if (filter.status !== undefined) {
    query.whereIn('status', asArray(filter.status));
  }
  if (filter.namespace !== undefined) {
    query.where('namespace', filter.namespace);
  }
  if (filter.entityRef !== undefined) {
    query.where('entity_ref', filter.entityRef);
  }
  return query;
}

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}
