import { TableProps } from '@backstage/core-components';

/** Rows per page of each leaderboard. */
export const LEADERBOARD_SIZE = 10;

/** Leaderboards page, search (service, team, placement) and sort in the browser: the overview holds every service. */
export const leaderboardOptions: TableProps<object>['options'] = {
  paging: true,
  pageSize: LEADERBOARD_SIZE,
  pageSizeOptions: [10, 25, 50],
  emptyRowsWhenPaging: false,
  search: true,
  searchFieldAlignment: 'left',
  sorting: true,
  draggable: false,
  padding: 'dense',
};

/** Sorts rows by a number, rows without one last. */
export function byNumber<T>(value: (row: T) => number | undefined) {
  return (a: T, b: T) =>
    (value(a) ?? Number.NEGATIVE_INFINITY) -
    (value(b) ?? Number.NEGATIVE_INFINITY);
}
