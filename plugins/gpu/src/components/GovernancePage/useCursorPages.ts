import { TableProps } from '@backstage/core-components';
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

/** What a list route is asked for a page: its size, the cursor of the page before it, and the search text. */
export interface CursorPageQuery {
  limit: number;
  cursor?: string;
  search?: string;
}

/**
 * Server-side paging of a Backstage `Table` (remote `data`) over a cursor-paged route: page N is read with the
 * `nextCursor` of page N-1, so the table moves a page at a time (a new search or page size starts again at the
 * first page). `error` is the last failed read (cleared by the next read that succeeds); the table stays mounted
 * so a retry keeps the search. `tableRef.current.onQueryChange()` reads the current page again.
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
  const readRef = useRef(read);
  readRef.current = read;

  const fetchPage = useCallback(
    async (query: Query<T>): Promise<QueryResult<T>> => {
      const search = query.search.trim();
      const key = `${query.pageSize}\u0000${search}`;
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
        });
        byPage.length = page + 1;
        if (result.nextCursor) byPage.push(result.nextCursor);
        setError(undefined);
        return { data: result.items, page, totalCount: result.totalCount };
      } catch (e) {
        setError(e as Error);
        return { data: [], page: 0, totalCount: 0 };
      }
    },
    [],
  );

  return { tableRef, fetchPage, error };
}
