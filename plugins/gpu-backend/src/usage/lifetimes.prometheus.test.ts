import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  demoPlatformConfig,
  parsePlatform,
  ServiceCost,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { DateTime } from 'luxon';
import { DatabaseGpuStore } from '../database';
import { readPrometheusConfig } from '../metrics/PrometheusConfig';
import {
  historyEnd,
  PrometheusWithHistory,
  prometheusVersionsUnderTest,
  startPrometheusWithHistory,
} from '../testUtils/prometheus';
import { lifetimeScenario } from './__testUtils__/lifetimeScenario';
import { seedUsageServices } from './__testUtils__/seedUsageServices';
import { AllocationReader } from './AllocationReader';
import { CostSnapshotStore } from './CostSnapshotStore';
import { storeDailySnapshots } from './snapshotTask';
import { UsageService } from './UsageService';

jest.setTimeout(600_000);

const DAY = 86400;
const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const prometheusVersions = prometheusVersionsUnderTest();
// A new seed each run unless GPU_LIFETIME_SEED repeats one (the test names print it).
const seed = Number(
  process.env.GPU_LIFETIME_SEED ?? Math.floor(Math.random() * 2 ** 31),
);

/** Collects what is wrong, to assert once at the end of a test. */
function problems() {
  const found: string[] = [];
  return {
    found,
    check: (ok: boolean, what: string) => {
      if (!ok) found.push(what);
    },
  };
}

/**
 * Within 1% of plain arithmetic (and 2 micro-dollars of rounding), every figure: the cards (15-minute and 3-hour
 * steps) as the daily snapshots and the live part of month to date (1-hour steps).
 */
function expectWithin(
  label: string,
  actual: number | undefined,
  expected: number,
) {
  const error = Math.abs((actual ?? NaN) - expected);
  const allowed = expected * 0.01 + 2;
  if (!(error <= allowed)) {
    throw new Error(
      `${label}: ${actual} micro-dollars, plain arithmetic says ${Math.round(
        expected,
      )} (${((error / Math.max(1, expected)) * 100).toFixed(2)}% off)`,
    );
  }
  return { error: error / Math.max(1, expected), at: label };
}

/**
 * The end of the history: the 2nd to the 9th of this month (or the last, when that is still to come) at a time of day,
 * both from the seed. The 30-day card always crosses a month boundary, and arrivals, departures and gaps fall on both sides
 * of midnight.
 */
function scenarioEnd(from: number): number {
  const latest = DateTime.fromSeconds(historyEnd(300), { zone: 'utc' });
  const at = (month: DateTime) =>
    month.startOf('month').plus({
      days: 1 + (from % 8),
      hours: from % 24,
      minutes: 5 * (Math.floor(from / 24) % 12),
    });
  const end =
    at(latest) <= latest ? at(latest) : at(latest.minus({ months: 1 }));
  return Math.round(end.toSeconds());
}

describe('Prometheus versions under test', () => {
  it('has every required version, and at least one', () => {
    expect(prometheusVersions.missing).toEqual([]);
    expect(prometheusVersions.available.length).toBeGreaterThan(0);
  });
});

describe.each(prometheusVersions.available)(
  `usage of services that live part of a window (seed ${seed}), Prometheus $version`,
  binaries => {
    const end = scenarioEnd(seed);
    const scenario = lifetimeScenario({ end, seed });
    const now = DateTime.fromSeconds(end, { zone: 'utc' });
    let prometheus: PrometheusWithHistory;
    let knex: Knex;
    let store: DatabaseGpuStore;
    let ids: Record<string, string>;
    let snapshots: CostSnapshotStore;
    const worst: Record<string, { error: number; at: string }> = {};
    const note = (figure: string, measured: { error: number; at: string }) => {
      if (measured.error > (worst[figure]?.error ?? -1))
        worst[figure] = measured;
    };

    function usageService() {
      return new UsageService({
        platform,
        reader: new AllocationReader(knex),
        snapshots,
        quotas: store,
        prometheus: readPrometheusConfig(
          new ConfigReader({
            gpu: { prometheus: { baseUrl: prometheus.url, timeout: 20000 } },
          }),
        ),
        now: () => now,
      });
    }

    beforeAll(async () => {
      [prometheus, knex] = await Promise.all([
        startPrometheusWithHistory(scenario.spec, {
          binaries,
          maxBlockDuration: '240h',
        }),
        databases.init('SQLITE_3'),
      ]);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      snapshots = new CostSnapshotStore(knex);
      ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: scenario.seeded,
      });
      await storeDailySnapshots({ usage: usageService(), snapshots, now });
    });

    afterAll(async () => {
      await prometheus?.stop();
      // The measured error of each figure, for the record.
      // eslint-disable-next-line no-console
      console.log(
        `seed ${seed}, Prometheus ${
          binaries.version
        }: largest error per figure ${JSON.stringify(
          Object.fromEntries(
            Object.entries(worst).map(([k, v]) => [
              k,
              `${(v.error * 100).toFixed(3)}% (${v.at})`,
            ]),
          ),
        )}; parameters ${JSON.stringify(scenario.parameters)}`,
      );
    });

    const windows = [
      ['24h', DAY],
      ['30d', 30 * DAY],
    ] as const;

    it.each(windows)(
      'bills each service its usage over the time it held its GPUs on the %s card',
      async (label, seconds) => {
        const usage = usageService();
        const { found, check } = problems();
        for (const name of scenario.names) {
          const cost: ServiceCost = await usage.serviceCost(ids[name], label);
          const expected = scenario.usageMicros(name, end - seconds, end);
          expectWithin(
            `${name} allocation (${label})`,
            cost.allocationMicros,
            scenario.allocationMicros(name, end - seconds, end),
          );
          if (expected === undefined) {
            check(cost.usageMicros === undefined, `${name}: usage known`);
            continue;
          }
          note(
            `card ${label}`,
            expectWithin(
              `${name} usage (${label})`,
              cost.usageMicros,
              expected,
            ),
          );
          check(
            cost.usageMicros! + cost.idleMicros! === cost.allocationMicros,
            `${name}: usage + idle is not the allocation (${label})`,
          );
          if (cost.allocationMicros === 0) {
            // Held nothing in the window: never `available`.
            check(
              cost.metrics.state === 'no-data',
              `${name}: ${cost.metrics.state} in a window it held nothing in`,
            );
            continue;
          }
          if (name !== 'gappy' && cost.utilisation) {
            // Nothing missing inside the time it held its GPUs: full coverage, full confidence.
            check(
              (cost.utilisation.coverage ?? 1) > 0.99 &&
                !/measured over/.test(cost.utilisation.note ?? ''),
              `${name}: coverage ${cost.utilisation.coverage} (${label})`,
            );
          }
        }
        expect(found).toEqual([]);
      },
    );

    it('bills a shared GPU its busy time exactly once, arrivals and departures included', async () => {
      const usage = usageService();
      const [steady, visitor] = await Promise.all([
        usage.serviceCost(ids['ts-steady'], '24h'),
        usage.serviceCost(ids['ts-visitor'], '24h'),
      ]);
      const busy =
        scenario.usageMicros('ts-steady', end - DAY, end)! +
        scenario.usageMicros('ts-visitor', end - DAY, end)!;
      note(
        'shared GPU busy',
        expectWithin(
          'shared GPU',
          steady.usageMicros! + visitor.usageMicros!,
          busy,
        ),
      );
      // The steady pod's missed vLLM scrapes are unknown tokens, split as without tokens, and said.
      expect(steady.utilisation!.note).toMatch(/tokens unknown at \d+ steps/);
    });

    it.each(windows)(
      'names the busy time above an MPS share on the team cost and the overview (%s): usage plus it is the busy time',
      async (label, seconds) => {
        const usage = usageService();
        const from = end - seconds;
        const [overview, team, hog, light] = await Promise.all([
          usage.overview(label),
          usage.teamCost('ml-platform', label),
          usage.serviceCost(ids['mps-hog'], label),
          usage.serviceCost(ids['mps-light'], label),
        ]);
        const above = scenario.aboveShareMicros(from, end);
        expect(above).toBeGreaterThan(0);
        note(
          `above share ${label}`,
          expectWithin(
            `overview above share (${label})`,
            overview.aboveShareMicros,
            above,
          ),
        );
        // Only ml-platform's pod is above its share.
        expect(team.aboveShareMicros).toBe(overview.aboveShareMicros);
        note(
          `above share ${label}`,
          expectWithin(
            `MPS GPU usage + above share (${label})`,
            hog.usageMicros! + light.usageMicros! + overview.aboveShareMicros!,
            scenario.usageMicros('mps-hog', from, end)! +
              scenario.usageMicros('mps-light', from, end)! +
              above,
          ),
        );
      },
    );

    it.each(windows)(
      'adds every service with a figure into the team cost and the overview (%s), naming those without',
      async (label, seconds) => {
        const usage = usageService();
        const overview = await usage.overview(label);
        let total = 0;
        for (const team of scenario.teams) {
          const cost = await usage.teamCost(team, label);
          const names = scenario.names.filter(n => scenario.teamOf(n) === team);
          const expected = names.reduce(
            (t, n) => t + (scenario.usageMicros(n, end - seconds, end) ?? 0),
            0,
          );
          total += expected;
          note(
            `team ${label}`,
            expectWithin(
              `${team} usage (${label})`,
              cost.usageMicros,
              expected,
            ),
          );
          expect(cost.withoutUsage?.map(s => s.name)).toEqual(
            names.filter(n => n === 'blind'),
          );
          const row = overview.teams.find(t => t.team === team)!;
          expect(row.usageMicros).toBe(cost.usageMicros);
          // Deleted services leave the list once they held nothing in the window.
          const listed = cost.services.map(s => s.name).sort();
          expect(listed).toEqual(
            names
              .filter(n => scenario.allocationMicros(n, end - seconds, end) > 0)
              .sort(),
          );
        }
        note(
          `overview ${label}`,
          expectWithin(
            `overview usage (${label})`,
            overview.usageMicros,
            total,
          ),
        );
        expect(overview.withoutUsage?.map(s => s.name)).toEqual(['blind']);
        expect(
          overview.usageMicros! +
            overview.idleMicros! +
            overview.services
              .filter(s => s.usageMicros === undefined)
              .reduce((t, s) => t + s.allocationMicros, 0),
        ).toBe(overview.allocationMicros);
        for (const pool of overview.pools) {
          expect(
            pool.allocatedMicros + pool.strandedMicros + pool.unallocatedMicros,
          ).toBe(pool.capacityMicros);
          // Plain arithmetic: the GPU-equivalents held at the end (deleted services hold none), 5040 units each, and
          // their part of the pool's capacity cost.
          const held = scenario.seeded
            .filter(x => x.pool === pool.pool && !x.releasedAt)
            .reduce((t, x) => t + x.gpuEquivalents, 0);
          expect(pool.allocatedGpuUnits).toBe(Math.round(held * 5040));
          note(
            'pool totals',
            expectWithin(
              `${pool.pool} allocated`,
              pool.allocatedMicros,
              (pool.capacityMicros * held) / pool.gpus,
            ),
          );
        }
      },
    );

    it('builds month to date and daily snapshots from usage over the time held', async () => {
      const usage = usageService();
      const { found, check } = problems();
      const monthStart = now.startOf('month').toSeconds();
      for (const name of scenario.names) {
        const cost = await usage.serviceCost(ids[name], '24h');
        const expected = scenario.usageMicros(name, monthStart, end);
        if (expected === undefined) {
          check(
            cost.monthToDate.usageMicros === undefined,
            `${name}: month-to-date usage known`,
          );
          continue;
        }
        note(
          'month to date',
          expectWithin(
            `${name} month to date`,
            cost.monthToDate.usageMicros,
            expected,
          ),
        );
      }
      const stored = await snapshots.list({
        serviceIds: Object.values(ids),
        fromDay: now.minus({ days: 31 }).toISODate()!,
        toDay: now.toISODate()!,
      });
      expect(found).toEqual([]);
      expect(stored.length).toBeGreaterThan(20);
      // Every completed day a service held GPUs on has its snapshot, deleted services' days included: their cost stays
      // in the history once they leave the current lists.
      const today = now.startOf('day');
      const keptDays = new Set(stored.map(x => `${x.serviceId}/${x.day}`));
      const days = Array.from({ length: 31 }, (_, i) =>
        today.minus({ days: 31 - i }),
      );
      for (const day of days) {
        const dayStart = day.toSeconds();
        for (const name of scenario.names) {
          const held = scenario.allocationMicros(
            name,
            dayStart,
            dayStart + DAY,
          );
          const kept = keptDays.has(`${ids[name]}/${day.toISODate()}`);
          check(
            kept === held > 0,
            `${name} on ${day.toISODate()}: ${
              kept ? 'a snapshot of a day it held nothing' : 'no snapshot'
            }`,
          );
        }
      }
      expect(found).toEqual([]);
      const nameOf = new Map(Object.entries(ids).map(([n, id]) => [id, n]));
      for (const snapshot of stored) {
        const name = nameOf.get(snapshot.serviceId)!;
        const dayStart = DateTime.fromISO(snapshot.day, {
          zone: 'utc',
        }).toSeconds();
        const expected = scenario.usageMicros(name, dayStart, dayStart + DAY);
        if (expected === undefined) continue;
        note(
          'daily snapshot',
          expectWithin(
            `${name} on ${snapshot.day}`,
            snapshot.usageMicros,
            expected,
          ),
        );
      }
    });

    it('trims daily entries to the window and reads last month from its snapshots on the 30-day card', async () => {
      const usage = usageService();
      for (const [label, seconds] of [
        ['PT6H', 6 * 3600],
        ['24h', DAY],
        ['30d', 30 * DAY],
      ] as const) {
        const cost = await usage.serviceCost(ids.gappy, label);
        const sum = cost.daily.reduce((t, d) => t + d.allocationMicros, 0);
        note(
          'daily entries',
          expectWithin(
            `gappy daily allocation (${label})`,
            sum,
            cost.allocationMicros,
          ),
        );
        for (const day of cost.daily) {
          const midnight = DateTime.fromISO(day.date, {
            zone: 'utc',
          }).toSeconds();
          // A day the window holds in part is that part's allocation (checked in the sum above), its usage in the
          // stored day's proportion: only whole stored days are plain arithmetic.
          if (day.source !== 'snapshot' || midnight < end - seconds) continue;
          const dayStart = midnight;
          note(
            'daily entries',
            expectWithin(
              `gappy on ${day.date} (${label})`,
              day.usageMicros,
              scenario.usageMicros(
                'gappy',
                dayStart,
                Math.min(end, dayStart + DAY - (dayStart % DAY)),
              )!,
            ),
          );
        }
      }
      const month = await usage.serviceCost(ids.gappy, '30d');
      const lastMonth = month.daily.filter(
        d =>
          d.date < now.startOf('month').toISODate()! && d.allocationMicros > 0,
      );
      expect(lastMonth.length).toBeGreaterThan(0);
      expect(lastMonth.every(d => d.source === 'snapshot')).toBe(true);
    });
  },
);
