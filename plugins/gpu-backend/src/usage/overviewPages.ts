import { InputError } from '@backstage/errors';
import {
  Overview,
  OVERVIEW_LEADERBOARD_DEFAULT_ORDER,
  OverviewLeaderboard,
  overviewLeaderboardRows,
  OverviewLeaderboardOrder,
  OverviewServicePage,
  OverviewServiceQuery,
  OverviewSummary,
  overviewTotals,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { decodeCursorArray, invalidCursor } from '../database/paging';

/** Rows of each leaderboard in `GET /overview` unless `top` says otherwise. */
export const DEFAULT_LEADERBOARD_SIZE = 10;
/** Rows of a `GET /overview/services` page unless `limit` says otherwise. */
export const DEFAULT_OVERVIEW_PAGE_SIZE = 10;
/** The most rows of a page or a first page. */
export const MAX_OVERVIEW_PAGE_SIZE = 200;

function pageSize(name: 'limit' | 'top', value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_OVERVIEW_PAGE_SIZE) {
    throw new InputError(
      `${name} must be a whole number from 1 to ${MAX_OVERVIEW_PAGE_SIZE}; got ${value}`,
    );
  }
  return value;
}

interface ResolvedQuery extends OverviewLeaderboardOrder {
  limit: number;
}

/** The cursor of the page after `offset` rows: the query it belongs to and where the next page starts. */
function encodeCursor(query: ResolvedQuery, offset: number): string {
  return Buffer.from(
    JSON.stringify([
      query.leaderboard,
      query.orderBy,
      query.order,
      query.search,
      offset,
    ]),
    'utf8',
  ).toString('base64url');
}

/** Where the page starts: the offset a cursor of the same query carries; another query's cursor is a 400. */
function offsetOf(query: ResolvedQuery, cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const [leaderboard, orderBy, order, search, offset] = decodeCursorArray(
    cursor,
    5,
    [0, 1, 2, 3],
  );
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw invalidCursor(cursor);
  }
  if (
    leaderboard !== query.leaderboard ||
    orderBy !== query.orderBy ||
    order !== query.order ||
    search !== query.search
  ) {
    throw invalidCursor(cursor);
  }
  return offset;
}

function page(
  overview: Overview,
  query: ResolvedQuery,
  cursor: string | undefined,
): OverviewServicePage {
  const offset = offsetOf(query, cursor);
  const rows = overviewLeaderboardRows(overview, query);
  const items = rows.slice(offset, offset + query.limit);
  const end = offset + items.length;
  return {
    items,
    ...(end < rows.length && { nextCursor: encodeCursor(query, end) }),
    totalCount: rows.length,
  };
}

function resolve(query: OverviewServiceQuery): ResolvedQuery {
  const leaderboard = query.leaderboard ?? 'cost';
  return {
    leaderboard,
    orderBy: query.orderBy ?? OVERVIEW_LEADERBOARD_DEFAULT_ORDER[leaderboard],
    order: query.order ?? 'desc',
    search: query.search?.trim() ?? '',
    limit: pageSize('limit', query.limit ?? DEFAULT_OVERVIEW_PAGE_SIZE),
  };
}

/**
 * `GET /overview/services`: one page of a leaderboard of `overview` (every current service for `cost`, those with an
 * idle figure for `waste`), searched and sorted on the server, each row with its best recommendation.
 */
export function overviewServicePage(
  overview: Overview,
  query: OverviewServiceQuery,
): OverviewServicePage {
  return page(overview, resolve(query), query.cursor);
}

/**
 * `GET /overview`: the totals of `overview` as they are, with what grows with the services counted instead of listed
 * (services, those without usage beyond the first few, recommendations) and the first `top` rows of each leaderboard.
 */
export function overviewSummary(
  overview: Overview,
  top: number = DEFAULT_LEADERBOARD_SIZE,
): OverviewSummary {
  pageSize('top', top);
  const firstPage = (leaderboard: OverviewLeaderboard) =>
    page(overview, resolve({ leaderboard, limit: top }), undefined);
  return {
    ...overviewTotals(overview),
    leaderboards: { cost: firstPage('cost'), waste: firstPage('waste') },
  };
}
