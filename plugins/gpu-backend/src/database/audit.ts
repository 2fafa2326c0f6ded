import { InputError } from '@backstage/errors';
import { SortOrder } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { whereContains } from './pagedLists';
import { AuditEventRow, toAuditEvent, toJson } from './rows';
import {
  AuditEventPage,
  AuditSubjectType,
  ListAuditEventsQuery,
} from './types';

/** Cursors of pages read oldest first start with this; newest first they are the last event's id. */
const ASC_CURSOR_PREFIX = 'asc.';

const DEFAULT_AUDIT_PAGE = 100;
const MAX_AUDIT_PAGE = 500;
const MAX_AUDIT_SEARCH = 100;

/** One change to record. */
export interface AuditInput {
  actor: string;
  action: string;
  subjectType: AuditSubjectType;
  subjectId: string;
  team?: string;
  before?: unknown;
  after?: unknown;
}

/** Records an audit event in the transaction that makes the change. */
export async function writeAuditEvent(
  tx: Knex.Transaction,
  event: AuditInput,
): Promise<void> {
  await writeAuditEvents(tx, [event]);
}

/** Records the audit events of one change in the transaction that makes it, in one statement, in their order. */
export async function writeAuditEvents(
  tx: Knex.Transaction,
  events: readonly AuditInput[],
): Promise<void> {
  if (events.length === 0) {
    return;
  }
  await tx('audit_events').insert(auditEventRows(events));
}

/** The rows of audit events recorded now, in their order (their ids follow it). */
export function auditEventRows(events: readonly AuditInput[]): object[] {
  const at = new Date();
  return events.map(event => ({
    at,
    actor: event.actor,
    action: event.action,
    subject_type: event.subjectType,
    subject_id: event.subjectId,
    team: event.team ?? null,
    before: toJson(event.before),
    after: toJson(event.after),
  }));
}

/** One page of audit events, newest first (`order: 'asc'`: oldest first), in the order of their ids. */
export async function queryAuditEvents(
  db: Knex,
  query: ListAuditEventsQuery,
): Promise<AuditEventPage> {
  const limit = query.limit ?? DEFAULT_AUDIT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) {
    throw new InputError(
      `limit must be a whole number from 1 to ${MAX_AUDIT_PAGE}; got ${query.limit}`,
    );
  }
  const builder = db<AuditEventRow>('audit_events');
  if (query.search !== undefined) {
    const search = query.search.trim();
    if (search.length < 1 || search.length > MAX_AUDIT_SEARCH) {
      throw new InputError(
        `search must be 1 to ${MAX_AUDIT_SEARCH} characters besides spaces; got '${query.search.slice(
          0,
          MAX_AUDIT_SEARCH,
        )}'`,
      );
    }
    builder.where(matches => {
      whereContains(matches, ['actor', 'action', 'team', 'subject_id'], search);
      // The events of a service, its reservations and its approvals name it (the trail's sentences do too). Ids are
      // uuids on PostgreSQL and subject ids text: compared as text.
      const named = () => {
        const services = db('services').select('id');
        whereContains(services, ['name'], search);
        return services;
      };
      const idsOf = (table: string, column: string) =>
        db(table)
          .select(db.raw('cast(?? as varchar(100))', [`${table}.id`]))
          .whereIn(column, named());
      matches.orWhereIn('subject_id', idsOf('services', 'services.id'));
      matches.orWhereIn('subject_id', idsOf('reservations', 'service_id'));
      matches.orWhereIn('subject_id', idsOf('approvals', 'service_id'));
    });
  }
  if (query.team !== undefined) {
    builder.whereIn(
      'team',
      Array.isArray(query.team) ? query.team : [query.team],
    );
  }
  const equal: Array<[keyof ListAuditEventsQuery, string]> = [
    ['actor', 'actor'],
    ['action', 'action'],
    ['subjectType', 'subject_type'],
    ['subjectId', 'subject_id'],
  ];
  for (const [key, column] of equal) {
    if (query[key] !== undefined) {
      builder.where(column, query[key] as string);
    }
  }
  if (query.since !== undefined) {
    builder.where('at', '>=', parseTime(query.since, 'since'));
  }
  if (query.until !== undefined) {
    builder.where('at', '<', parseTime(query.until, 'until'));
  }
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw new InputError(`order must be one of asc, desc; got '${order}'`);
  }
  const after =
    query.cursor !== undefined ? cursorId(query.cursor, order) : undefined;
  const counted = builder.clone().count({ count: '*' }).first();
  if (after !== undefined) {
    builder.where('id', order === 'desc' ? '<' : '>', after);
  }
  const [rows, count] = await Promise.all([
    builder.orderBy('id', order).limit(limit + 1),
    counted,
  ]);
  const items = rows.slice(0, limit).map(toAuditEvent);
  return {
    items,
    totalCount: Number(count?.count ?? 0),
    nextCursor:
      rows.length > limit
        ? `${order === 'asc' ? ASC_CURSOR_PREFIX : ''}${
            items[items.length - 1].id
          }`
        : undefined,
  };
}

/** The id a cursor pages after; an `InputError` for one not made by a page of this order. */
function cursorId(cursor: string, order: SortOrder): number {
  const match = /^(asc\.)?(\d+)$/.exec(cursor);
  if (!match) {
    throw new InputError(
      `cursor must be the nextCursor of a previous page; got '${cursor.slice(
        0,
        100,
      )}'`,
    );
  }
  const madeAsc = match[1] !== undefined;
  if (madeAsc !== (order === 'asc')) {
    throw new InputError(
      `cursor is the nextCursor of a page read ${
        madeAsc ? 'oldest' : 'newest'
      } first, not ${
        order === 'asc' ? 'oldest' : 'newest'
      } first; read the first page again after changing the order`,
    );
  }
  const id = Number(match[2]);
  // Ids are integer columns: a number past them (a 23-digit cursor) was never an id.
  if (!Number.isSafeInteger(id)) {
    throw new InputError(
      `cursor must be the nextCursor of a previous page; got '${cursor.slice(
        0,
        100,
      )}'`,
    );
  }
  return id;
}

function parseTime(value: string, what: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new InputError(
      `${what} must be an ISO 8601 time such as 2025-01-31T00:00:00Z; got '${value}'`,
    );
  }
  return date;
}
