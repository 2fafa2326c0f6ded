import { ConflictError } from '@backstage/errors';
import { Knex } from 'knex';
import {
  ApprovalRow,
  ReservationRow,
  ServiceRow,
  toApprovalRecord,
  toReservationRecord,
  toServiceRecord,
} from './rows';
import { CreateServiceInput, CreateServiceResult } from './types';

/** The earlier result of a request with the same key; a conflict when the key was used for another request. */
export async function findByRequestKey(
  tx: Knex.Transaction,
  input: CreateServiceInput,
): Promise<CreateServiceResult | undefined> {
  const query = requestKeyQuery(tx, input);
  return query && earlierResult(tx, input, await query);
}

/** The read of the service an earlier request with the same key created (none without a key). */
export function requestKeyQuery(
  tx: Knex.Transaction,
  input: Pick<CreateServiceInput, 'team' | 'requestKey'>,
): Knex.QueryBuilder<ServiceRow, ServiceRow | undefined> | undefined {
  if (input.requestKey === undefined) {
    return undefined;
  }
  return tx<ServiceRow>('services')
    .where({ team: input.team, request_key: input.requestKey })
    .first();
}

/**
 * The earlier result from the service row {@link requestKeyQuery} read (none without one); a conflict when the key
 * was used for another request.
 */
export async function earlierResult(
  tx: Knex.Transaction,
  input: CreateServiceInput,
  row: ServiceRow | undefined,
): Promise<CreateServiceResult | undefined> {
  if (!row) {
    return undefined;
  }
  const service = toServiceRecord(row);
  if (
    service.name !== input.name ||
    service.namespace !== input.namespace ||
    canonicalJson(service.request) !== canonicalJson(input.request)
  ) {
    throw new ConflictError(
      `Request key '${input.requestKey}' was already used by team '${input.team}' ` +
        `for a different request (service '${service.name}'); use a new key for a new request`,
    );
  }
  const reservations = (
    await tx<ReservationRow>('reservations')
      .where({ service_id: service.id })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'asc' },
      ])
  ).map(toReservationRecord);
  const approvalRow = await tx<ApprovalRow>('approvals')
    .where({ service_id: service.id, kind: 'create' })
    .first();
  return {
    created: false,
    service,
    reservation: reservations.find(r => r.state === 'held') ?? reservations[0],
    approval: approvalRow ? toApprovalRecord(approvalRow) : undefined,
  };
}

/** JSON with object keys sorted, to compare requests regardless of key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
