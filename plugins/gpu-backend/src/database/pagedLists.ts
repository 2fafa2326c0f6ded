import { Knex } from 'knex';
import {
  approvalSort,
  encodeApprovalCursor,
  orderBySortKey,
  selectSortKey,
  whereAfterCursor,
  WithSortKey,
} from './approvalOrder';
import {
  containsPattern,
  CountedPage,
  decodeCursor,
  encodeCursor,
  Page,
  pageSize,
} from './paging';
import {
  ApprovalRow,
  ServiceRow,
  toApprovalRecord,
  toServiceRecord,
} from './rows';
import { withLedger } from './serviceQueries';
import { whereServiceVisible } from './serviceVisibility';
import {
  ApprovalPageQuery,
  ApprovalRecord,
  ServiceListing,
  ServicePageQuery,
} from './types';

const LIKE_ESCAPE = "escape '\\'";

/** Rows where any of the columns contains `text`, case-insensitively. */
export function whereContains(
  builder: Knex.QueryBuilder,
  columns: string[],
  text: string,
): void {
  const pattern = containsPattern(text);
  builder.where(any => {
    for (const column of columns) {
      any.orWhereRaw(`lower(??) like ? ${LIKE_ESCAPE}`, [column, pattern]);
    }
  });
}

/**
 * Rows after the cursor's item in keyset order: sort time `direction` ('<' newest first, '>' oldest first) the
 * cursor's, or the same time and a greater id.
 */
function whereAfter(
  builder: Knex.QueryBuilder,
  cursor: string,
  columns: { at: string; id: string },
  direction: '<' | '>',
): void {
  const after = decodeCursor(cursor);
  builder.where(next =>
    next
      .where(columns.at, direction, after.at)
      .orWhere(same =>
        same
          .where(columns.at, '=', after.at)
          .andWhere(columns.id, '>', after.id),
      ),
  );
}

/** One page of services with their reservations and approvals, in three queries. */
export async function listServicePage(
  db: Knex,
  query: ServicePageQuery,
): Promise<Page<ServiceListing>> {
  const limit = pageSize(query.limit);
  const builder = db<ServiceRow>('services');
  if (query.team !== undefined) builder.where('team', query.team);
  if (query.status !== undefined) builder.where('status', query.status);
  if (query.entityRef !== undefined) {
    builder.where('entity_ref', query.entityRef);
  }
  if (query.environment !== undefined) {
    builder.where('environment', query.environment);
  }
  if (query.search) whereContains(builder, ['name', 'team'], query.search);
  if (query.visibleTo) whereServiceVisible(builder, query.visibleTo);
  if (query.cursor !== undefined) {
    whereAfter(builder, query.cursor, { at: 'created_at', id: 'id' }, '<');
  }
  const rows = await builder
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(limit + 1);
  const services = rows.slice(0, limit).map(toServiceRecord);
  const items = services.length
    ? await withLedger(
        db,
        services,
        services.map(s => s.id),
      )
    : [];
  const last = services[services.length - 1];
  return {
    items,
    nextCursor:
      rows.length > limit
        ? encodeCursor({ at: new Date(last.createdAt), id: last.id })
        : undefined,
  };
}

/**
 * One page of approvals in the query's order, and how many match on every page. Keyset paging on (sort key, id):
 * the cursor carries the sort and the last row's key, so a page follows on from the one before it under that order
 * whatever was added or decided in between.
 */
export async function listApprovalPage(
  db: Knex,
  query: ApprovalPageQuery,
): Promise<CountedPage<ApprovalRecord>> {
  const limit = pageSize(query.limit);
  const sort = approvalSort(query.orderBy, query.order);
  const builder = db<WithSortKey<ApprovalRow>>('approvals');
  if (query.state !== undefined) builder.where('approvals.state', query.state);
  if (query.team !== undefined) builder.where('approvals.team', query.team);
  if (query.search || query.visibleTo || sort.key.join === 'services') {
    builder.join('services', 'services.id', 'approvals.service_id');
  }
  if (sort.key.join === 'reservations') {
    builder.join('reservations', 'reservations.id', 'approvals.reservation_id');
  }
  if (query.search) {
    whereContains(
      builder,
      ['services.name', 'approvals.team', 'approvals.requested_by'],
      query.search,
    );
  }
  if (query.visibleTo) whereServiceVisible(builder, query.visibleTo);
  const counted = builder.clone().count({ count: '*' }).first();
  builder.select('approvals.*');
  selectSortKey(builder, sort);
  if (query.cursor !== undefined) {
    whereAfterCursor(builder, sort, query.cursor);
  }
  orderBySortKey(builder, sort);
  const [rows, count] = await Promise.all([builder.limit(limit + 1), counted]);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toApprovalRecord),
    totalCount: Number(count?.count ?? 0),
    nextCursor:
      rows.length > limit ? encodeApprovalCursor(sort, last) : undefined,
  };
}
