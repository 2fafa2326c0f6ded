import {
  Overview,
  Recommendation,
  ServiceCostSummary,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  overviewServicePage,
  OverviewSnapshots,
  overviewSummary,
} from './overviewPages';

function service(
  name: string,
  figures: Partial<ServiceCostSummary> = {},
): ServiceCostSummary {
  return {
    serviceId: `id-${name}`,
    name,
    team: name.startsWith('s') ? 'search' : 'ml-platform',
    namespace: 'ns',
    environment: 'dev',
    status: 'ready',
    tier: 'mig',
    pool: 'a100-mig',
    migProfile: '1g.10gb',
    gpuEquivalents: 1 / 7,
    accrualBasis: 'dry-run',
    reservedMicros: 0,
    allocationMicros: 1_000,
    monthToDateMicros: 1_000,
    projectedMonthMicros: 2_000,
    ...figures,
  };
}

function recommendation(
  serviceName: string,
  monthlySavingMicros: number,
  title: string,
): Recommendation {
  return {
    kind: 'right-size',
    severity: 'info',
    serviceId: `id-${serviceName}`,
    serviceName,
    team: 'ml-platform',
    title,
    message: title,
    monthlySavingMicros,
    evidence: {},
  };
}

function overviewOf(
  services: ServiceCostSummary[],
  recommendations: Recommendation[] = [],
): Overview {
  return {
    window: {
      label: '7d',
      start: '2026-11-25T00:00:00Z',
      end: '2026-12-02T00:00:00Z',
      durationSeconds: 604_800,
      stepSeconds: 3_600,
    },
    metrics: { state: 'available' },
    queryCount: 26,
    month: '2026-12',
    allocationMicros: 123,
    monthToDateMicros: 456,
    projectedMonthMicros: 789,
    spotSavingMicros: 0,
    withoutUsage: services.map(s => ({ serviceId: s.serviceId, name: s.name })),
    services,
    pools: [],
    teams: [
      {
        team: 'ml-platform',
        allocationMicros: 1,
        monthlyBudgetMicros: 2,
        monthToDateMicros: 3,
        projectedMonthMicros: 4,
        withoutUsage: [{ serviceId: 'id-a', name: 'a' }],
      },
    ],
    recommendations,
  };
}

/** 30 services: month-to-date 30, 29, ... 1 (b-00 the most), every third without an idle figure. */
const many = Array.from({ length: 30 }, (_, i) =>
  service(`b-${String(i).padStart(2, '0')}`, {
    monthToDateMicros: 30 - i,
    ...(i % 3 === 0 ? {} : { idleMicros: i }),
  }),
);

describe('overviewSummary', () => {
  it('keeps the totals, counts what grows with the services and gives the first page of each leaderboard', () => {
    const overview = overviewOf(many, [
      recommendation('b-02', 5, 'small'),
      recommendation('b-02', 50, 'large'),
    ]);
    const summary = overviewSummary(overview, 3);
    expect(summary).not.toHaveProperty('services');
    expect(summary).not.toHaveProperty('recommendations');
    expect(summary).toMatchObject({
      allocationMicros: 123,
      monthToDateMicros: 456,
      projectedMonthMicros: 789,
      queryCount: 26,
      serviceCount: 30,
      withoutUsageCount: 30,
      recommendationCount: 2,
    });
    expect(summary.withoutUsage).toHaveLength(20);
    expect(summary.withoutUsage![0].name).toBe('b-00');
    expect(summary.teams).toEqual([
      {
        team: 'ml-platform',
        allocationMicros: 1,
        monthlyBudgetMicros: 2,
        monthToDateMicros: 3,
        projectedMonthMicros: 4,
        withoutUsageCount: 1,
      },
    ]);
    const { cost, waste } = summary.leaderboards;
    expect(cost.items.map(s => s.name)).toEqual(['b-00', 'b-01', 'b-02']);
    expect(cost.totalCount).toBe(30);
    expect(cost.nextCursor).toBeDefined();
    // Most idle first, only services with an idle figure (20 of 30).
    expect(waste.items.map(s => s.name)).toEqual(['b-29', 'b-28', 'b-26']);
    expect(waste.totalCount).toBe(20);
    // Each row with the recommendation that saves most.
    expect(cost.items[2].recommendation?.title).toBe('large');
    expect(cost.items[0]).not.toHaveProperty('recommendation');
  });

  it('stays the same size whatever the number of services', () => {
    const size = (n: number) =>
      JSON.stringify(
        overviewSummary(
          overviewOf(
            Array.from({ length: n }, (_, i) =>
              service(`s-${String(i).padStart(5, '0')}`, { idleMicros: i }),
            ),
          ),
        ),
      ).length;
    expect(size(10_000)).toBeLessThan(size(100) * 1.05);
  });

  it('refuses a top outside 1 to 200', () => {
    expect(() => overviewSummary(overviewOf(many), 0)).toThrow(
      'top must be a whole number from 1 to 200; got 0',
    );
  });
});

describe('overviewServicePage', () => {
  const overview = overviewOf(many);

  it('pages a leaderboard with cursors: every service once, in order, the last page without a cursor', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = overviewServicePage(overview, { limit: 7, cursor });
      expect(page.totalCount).toBe(30);
      seen.push(...page.items.map(s => s.name));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(many.map(s => s.name));
  });

  it('sorts by the asked figure with services without it last in both orders, ties by name', () => {
    const names = (order: 'asc' | 'desc') =>
      overviewServicePage(overview, {
        orderBy: 'idle',
        order,
        limit: 200,
      }).items.map(s => s.name);
    expect(names('desc').slice(0, 2)).toEqual(['b-29', 'b-28']);
    expect(names('asc').slice(0, 2)).toEqual(['b-01', 'b-02']);
    // The ten without an idle figure, by name, last in both.
    expect(names('desc').slice(20)).toEqual(names('asc').slice(20));
    expect(names('desc').slice(20)[0]).toBe('b-00');
    const tied = overviewOf([
      service('z', { monthToDateMicros: 5 }),
      service('a', { monthToDateMicros: 5 }),
    ]);
    expect(overviewServicePage(tied, {}).items.map(s => s.name)).toEqual([
      'a',
      'z',
    ]);
  });

  it('searches name, namespace, team, tier and pool, case-insensitive, and counts the matches', () => {
    const mixed = overviewOf([
      service('summariser'),
      service('chat', { pool: 'L4-ONDEMAND', tier: 'dedicated' }),
      service('writer'),
    ]);
    expect(
      overviewServicePage(mixed, { search: 'l4-on' }).items.map(s => s.name),
    ).toEqual(['chat']);
    // `search` is the summariser's team.
    expect(overviewServicePage(mixed, { search: 'SEARCH' })).toMatchObject({
      totalCount: 1,
      items: [{ name: 'summariser' }],
    });
  });

  it('refuses a cursor of another order or search, and a malformed one (400)', () => {
    const first = overviewServicePage(overview, { limit: 5 });
    expect(() =>
      overviewServicePage(overview, {
        limit: 5,
        order: 'asc',
        cursor: first.nextCursor,
      }),
    ).toThrow(/cursor must be the nextCursor of a previous page/);
    expect(() =>
      overviewServicePage(overview, {
        search: 'b-',
        cursor: first.nextCursor,
      }),
    ).toThrow(/cursor must be the nextCursor/);
    expect(() => overviewServicePage(overview, { cursor: 'bm9wZQ' })).toThrow(
      /cursor must be the nextCursor/,
    );
    expect(() => overviewServicePage(overview, { limit: 201 })).toThrow(
      'limit must be a whole number from 1 to 200; got 201',
    );
  });
});

describe('OverviewSnapshots', () => {
  it('serves pages from the overview kept for the window and cluster while it is recent, and keeps every fresh one', async () => {
    let now = 0;
    const snapshots = new OverviewSnapshots(60_000, () => now);
    let computed = 0;
    const compute = async () => {
      computed += 1;
      return overviewOf(many);
    };
    await snapshots.fresh('7d', compute);
    await snapshots.recent('7d', compute);
    now = 59_999;
    await snapshots.recent('7d', compute);
    expect(computed).toBe(1);
    // Another window or cluster is another overview.
    await snapshots.recent('24h', compute);
    expect(computed).toBe(2);
    now = 60_000;
    await snapshots.recent('7d', compute);
    expect(computed).toBe(3);
    // GET /overview computes afresh, whatever is kept.
    await snapshots.fresh('7d', compute);
    expect(computed).toBe(4);
  });

  it('keeps no failed overview', async () => {
    const snapshots = new OverviewSnapshots(60_000, () => 0);
    await expect(
      snapshots.recent('7d', () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
    await expect(
      snapshots.recent('7d', async () => overviewOf(many)),
    ).resolves.toMatchObject({ queryCount: 26 });
  });
});
