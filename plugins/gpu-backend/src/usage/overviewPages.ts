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

/** How long the overview a page of `GET /overview/services` is cut from serves the next pages. */
export const OVERVIEW_SNAPSHOT_TTL_MS = 60_000;

/**
 * The overviews the leaderboards page through, per window and cluster as asked: `GET /overview` computes one afresh
 * and keeps it; a page of `GET /overview/services` is cut from the one kept (computed when there is none, or it is
 * older than {@link OVERVIEW_SNAPSHOT_TTL_MS}), so paging does not recompute the overview of every service (tens of
 * seconds with Prometheus at 10,000 services) and the pages of one leaderboard come from one ranking.
 */
export class OverviewSnapshots {
  private readonly entries = new Map<
    string,
    { at: number; overview: Promise<Overview> }
  >();

  constructor(
    private readonly ttlMs = OVERVIEW_SNAPSHOT_TTL_MS,
    private readonly clock: () => number = () => Date.now(),
  ) {}

  /** A fresh overview, kept for the pages that follow. */
  fresh(key: string, compute: () => Promise<Overview>): Promise<Overview> {
    return this.keep(key, compute());
  }

  /** The overview kept for `key` while it is recent, else a fresh one. */
  recent(key: string, compute: () => Promise<Overview>): Promise<Overview> {
    const entry = this.entries.get(key);
    if (entry && this.clock() - entry.at < this.ttlMs) return entry.overview;
    return this.fresh(key, compute);
  }

  private keep(key: string, overview: Promise<Overview>): Promise<Overview> {
    const now = this.clock();
    for (const [k, entry] of this.entries) {
      if (now - entry.at >= this.ttlMs) this.entries.delete(k);
    }
    this.entries.set(key, { at: now, overview });
    // A failed computation is not kept: the next page asks again.
    overview.catch(() => {
      if (this.entries.get(key)?.overview === overview)
        this.entries.delete(key);
    });
    return overview;
  }
}
