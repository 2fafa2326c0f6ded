import { InputError } from '@backstage/errors';
import {
  APPROVAL_ORDER_BY,
  ApprovalOrderBy,
  SortOrder,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { cursorTime, decodeCursorArray, invalidCursor } from './paging';
import { DbTime, toIso } from './rows';

/** How one `orderBy` of the approvals sorts: the stored column and how its values read in a cursor. */
interface SortKey {
  column: string;
  kind: 'time' | 'text' | 'integer';
  /** Needs the approval's service (`services`) or reservation (`reservations`) joined. */
  join?: 'services' | 'reservations';
}

const SORT_KEYS: Record<ApprovalOrderBy, SortKey> = {
  requestedAt: { column: 'approvals.requested_at', kind: 'time' },
  team: { column: 'approvals.team', kind: 'text' },
  service: { column: 'services.name', kind: 'text', join: 'services' },
  // What the approval asks to hold, as stored with its reservation.
  monthlyCost: {
    column: 'reservations.monthly_cost_micros',
    kind: 'integer',
    join: 'reservations',
  },
};

const SORT_ORDERS: readonly SortOrder[] = ['asc', 'desc'];

/** A checked sort of the approvals: by `orderBy` in `order`, ties by approval id (ascending). */
export interface ApprovalSort {
  orderBy: ApprovalOrderBy;
  order: SortOrder;
  key: SortKey;
}

/** The sort asked for, requested time oldest first when absent; anything else is an `InputError` naming the allowed. */
export function approvalSort(
  orderBy: string | undefined,
  order: string | undefined,
): ApprovalSort {
  const by = orderBy ?? 'requestedAt';
  if (!(APPROVAL_ORDER_BY as readonly string[]).includes(by)) {
    throw new InputError(
      `orderBy must be one of ${APPROVAL_ORDER_BY.join(', ')}; got '${by}'`,
    );
  }
  const direction = order ?? 'asc';
  if (!(SORT_ORDERS as readonly string[]).includes(direction)) {
    throw new InputError(
      `order must be one of ${SORT_ORDERS.join(', ')}; got '${direction}'`,
    );
  }
  return {
    orderBy: by as ApprovalOrderBy,
    order: direction as SortOrder,
    key: SORT_KEYS[by as ApprovalOrderBy],
  };
}

/** The sort key of a row as selected by {@link selectSortKey}, in the cursor's form. */
type CursorKey = string | number;

const SORT_KEY_ALIAS = 'sort_key';

/** A row selected with {@link selectSortKey}. */
export type WithSortKey<Row> = Row & { [SORT_KEY_ALIAS]: unknown };

/** Adds the sort key to the selected columns (as `sort_key`), for the cursor of the page's last row. */
export function selectSortKey(
  builder: Knex.QueryBuilder,
  sort: ApprovalSort,
): void {
  builder.select({ [SORT_KEY_ALIAS]: sort.key.column });
}

/** Orders by the sort key, then by id. */
export function orderBySortKey(
  builder: Knex.QueryBuilder,
  sort: ApprovalSort,
): void {
  builder.orderBy([
    { column: sort.key.column, order: sort.order },
    { column: 'approvals.id', order: 'asc' },
  ]);
}

/** The cursor of the item after which the next page starts: the sort it was read in, its sort key and its id. */
export function encodeApprovalCursor(
  sort: ApprovalSort,
  row: WithSortKey<{ id: string }>,
): string {
  const raw = row[SORT_KEY_ALIAS];
  let key: CursorKey;
  if (sort.key.kind === 'time') {
    key = toIso(raw as DbTime);
  } else if (sort.key.kind === 'integer') {
    // PostgreSQL returns bigint columns as strings.
    key = Number(raw);
  } else {
    key = String(raw);
  }
  return Buffer.from(
    JSON.stringify([sort.orderBy, sort.order, key, row.id]),
    'utf8',
  ).toString('base64url');
}

/**
 * Rows after the cursor's item in the sort's keyset order: a sort key after the cursor's in `order`, or the same key
 * and a greater id. A cursor that is not a `nextCursor` of this sort is an `InputError`.
 */
export function whereAfterCursor(
  builder: Knex.QueryBuilder,
  sort: ApprovalSort,
  cursor: string,
): void {
  const after = decodeApprovalCursor(sort, cursor);
  builder.where(next =>
    next
      .where(sort.key.column, sort.order === 'asc' ? '>' : '<', after.key)
      .orWhere(same =>
        same
          .where(sort.key.column, '=', after.key)
          .andWhere('approvals.id', '>', after.id),
      ),
  );
}

function decodeApprovalCursor(
  sort: ApprovalSort,
  cursor: string,
): { key: Date | string | number; id: string } {
  const invalid = () => invalidCursor(cursor);
  const [orderBy, order, key, id] = decodeCursorArray(cursor, 4, [0, 1, 3]) as [
    string,
    string,
    unknown,
    string,
  ];
  if (orderBy !== sort.orderBy || order !== sort.order) {
    throw new InputError(
      `cursor is the nextCursor of a page sorted by ${orderBy} ${order}, not by ${sort.orderBy} ${sort.order}; ` +
        'read the first page again after changing the order',
    );
  }
  if (sort.key.kind === 'time') {
    return { key: cursorTime(key, cursor), id };
  }
  if (sort.key.kind === 'integer') {
    if (typeof key !== 'number' || !Number.isSafeInteger(key)) throw invalid();
    return { key, id };
  }
  if (typeof key !== 'string') throw invalid();
  return { key, id };
}
