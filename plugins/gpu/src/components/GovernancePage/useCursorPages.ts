import { TableProps } from '@backstage/core-components';
import { SortOrder } from '@gpu-platform/backstage-plugin-gpu-common';
import { useCallback, useRef, useState } from 'react';

/** The remote `data` of a Backstage `Table`: material-table's query of a page, and the page it expects back. */
type RemoteData<T extends object> = Extract<
  TableProps<T>['data'],
  (...args: any[]) => unknown
>;
type Query<T extends object> = Parameters<RemoteData<T>>[0];
type QueryResult<T extends object> = Awaited<ReturnType<RemoteData<T>>>;

/** One page of a list route that pages with opaque cursors and counts what matches. */
export interface CursorPage<T> {
  items: T[];
  nextCursor?: string;
  totalCount: number;
}

/** A column header's sort: the column's `field` and its direction. */
export interface ColumnSort {
  field: string;
  order: SortOrder;
}

/**
 * What a list route is asked for a page: its size, the cursor of the page before it, the search text, and the sort
 * of the column the user sorted by (absent: the route's own order).
 */
export interface CursorPageQuery {
  limit: number;
  cursor?: string;
  search?: string;
  sort?: ColumnSort;
}

/**
 * Server-side paging of a Backstage `Table` (remote `data`) over a cursor-paged route: page N is read with the
 * `nextCursor` of page N-1, so the table moves a page at a time (a new search, sort or page size starts again at the
 * first page, in one request). Sorting is the server's: a sortable column's `field` and direction go to `read` as
 * `sort`, and `sort` is the one the current page was read in. `error` is the last failed read (cleared by the next
 * read that succeeds); the table stays mounted so a retry keeps the search. `tableRef.current.onQueryChange()` reads
 * the current page again.
 */
export function useCursorPages<T extends object>(
  read: (query: CursorPageQuery) => Promise<CursorPage<T>>,
) {
  const tableRef = useRef<{ onQueryChange: () => void } | undefined>();
  const cursors = useRef<{ key: string; byPage: (string | undefined)[] }>({
    key: '',
    byPage: [undefined],
  });
  const [error, setError] = useState<Error>();
  const [sort, setSort] = useState<ColumnSort>();
  const readRef = useRef(read);
  readRef.current = read;

  const fetchPage = useCallback(
    async (query: Query<T>): Promise<QueryResult<T>> => {
      const search = query.search.trim();
      const field = query.orderBy?.field;
      const columnSort: ColumnSort | undefined =
        field !== undefined && query.orderDirection
          ? { field: String(field), order: query.orderDirection }
          : undefined;
      const key = [
        query.pageSize,
        search,
        columnSort?.field ?? '',
        columnSort?.order ?? '',
      ].join('\u0000');
      if (cursors.current.key !== key) {
        cursors.current = { key, byPage: [undefined] };
      }
      const { byPage } = cursors.current;
      const page = query.page < byPage.length ? query.page : 0;
      try {
        const result = await readRef.current({
          limit: query.pageSize,
          cursor: byPage[page],
          ...(search ? { search } : {}),
          ...(columnSort ? { sort: columnSort } : {}),
        });
        byPage.length = page + 1;
        if (result.nextCursor) byPage.push(result.nextCursor);
        setError(undefined);
        setSort(columnSort);
        return { data: result.items, page, totalCount: result.totalCount };
      } catch (e) {
        setError(e as Error);
        return { data: [], page: 0, totalCount: 0 };
      }
    },
    [],
  );

  return { tableRef, fetchPage, error, sort };
}
