import { useApi } from '@backstage/frontend-plugin-api';
import {
  OVERVIEW_SERVICE_ORDER_BY,
  OverviewLeaderboard,
  OverviewServiceRow,
  OverviewSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { useEffect, useRef } from 'react';
import { gpuApiRef } from '../../api';
import { LEADERBOARD_SIZE } from './leaderboardOptions';
import { useCursorPages } from './useCursorPages';

/**
 * Server-side pages of a leaderboard of the overview: its first page, in its own order, is the one the overview
 * carries (no request); another page, page size, search or sort is read from `GET /overview/services` of the same
 * window and cluster. A sortable column's `field` is the `orderBy` it sorts by (`OVERVIEW_SERVICE_ORDER_BY`). A new
 * overview (another window, a refresh) reads the current page again.
 */
export function useLeaderboardPages<T extends object>(props: {
  overview: OverviewSummary;
  leaderboard: OverviewLeaderboard;
  usageWindow: string;
  cluster?: string;
  toRow: (row: OverviewServiceRow) => T;
}) {
  const gpuApi = useApi(gpuApiRef);
  const { overview, leaderboard, usageWindow, cluster, toRow } = props;
  const pages = useCursorPages<T>(async ({ sort, ...query }) => {
    const orderBy = OVERVIEW_SERVICE_ORDER_BY.find(o => o === sort?.field);
    const page =
      !query.cursor &&
      !query.search &&
      !orderBy &&
      query.limit === LEADERBOARD_SIZE
        ? overview.leaderboards[leaderboard]
        : await gpuApi.listOverviewServices(
            usageWindow,
            {
              leaderboard,
              ...query,
              ...(orderBy && sort ? { orderBy, order: sort.order } : {}),
            },
            cluster,
          );
    return { ...page, items: page.items.map(toRow) };
  });
  const shown = useRef(overview);
  const { tableRef } = pages;
  useEffect(() => {
    if (shown.current === overview) return;
    shown.current = overview;
    tableRef.current?.onQueryChange();
  }, [overview, tableRef]);
  return pages;
}
