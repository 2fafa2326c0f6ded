import { InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { AuditEventRow, toAuditEvent, toJson } from './rows';
import {
  AuditEventPage,
  AuditSubjectType,
  ListAuditEventsQuery,
} from './types';

const DEFAULT_AUDIT_PAGE = 100;
const MAX_AUDIT_PAGE = 500;

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
  await tx('audit_events').insert({
    at: new Date(),
    actor: event.actor,
    action: event.action,
    subject_type: event.subjectType,
    subject_id: event.subjectId,
    team: event.team ?? null,
    before: toJson(event.before),
    after: toJson(event.after),
  });
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
  if (query.cursor !== undefined) {
    if (!/^\d+$/.test(query.cursor)) {
      throw new InputError(
        `cursor must be the nextCursor of a previous page; got '${query.cursor}'`,
      );
    }
  }
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') {
    throw new InputError(`order must be one of asc, desc; got '${order}'`);
  }
  const counted = builder.clone().count({ count: '*' }).first();
  if (query.cursor !== undefined) {
    builder.where('id', order === 'desc' ? '<' : '>', Number(query.cursor));
  }
  const [rows, count] = await Promise.all([
    builder.orderBy('id', order).limit(limit + 1),
    counted,
  ]);
  const items = rows.slice(0, limit).map(toAuditEvent);
  return {
    items,
    totalCount: Number(count?.count ?? 0),
    nextCursor: rows.length > limit ? items[items.length - 1].id : undefined,
  };
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
