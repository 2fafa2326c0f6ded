import { TableProps } from '@backstage/core-components';

/** Rows per page of each leaderboard: the first page comes with the overview (`GET /overview`'s `top`). */
export const LEADERBOARD_SIZE = 10;

/**
 * Leaderboards page, search (service, namespace, team, tier, pool) and sort on the server (`GET /overview/services`):
 * the overview carries each leaderboard's first page only.
 */
export const leaderboardOptions: TableProps<object>['options'] = {
  paging: true,
  pageSize: LEADERBOARD_SIZE,
  pageSizeOptions: [10, 25, 50],
  showFirstLastPageButtons: false,
  emptyRowsWhenPaging: false,
  search: true,
  searchFieldAlignment: 'left',
  debounceInterval: 300,
  sorting: true,
  thirdSortClick: false,
  draggable: false,
  padding: 'dense',
};
