/*
 * The team's month as the database counts it (held seconds rounded and grouped in SQL) must equal admission's
 * `monthSpendOf` over the same reservations read one by one, on SQLite and PostgreSQL, for any held periods: before
 * the month, across its start, released before or after now, held after now, shorter than half a second, a whole
 * number of seconds and a half, and with the reservation a change gives back left out of the rest of the month.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Knex } from 'knex';
import { governanceContext, monthOf, monthSpendOf } from '../admission';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { readMonthSpend, spendingReservationOf } from './monthSpend';
import { ReservationRow } from './rows';

jest.setTimeout(120_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const TEAM = 'search';
const OTHER_TEAM = 'recsys';
const NOW = new Date('2026-12-17T10:20:30.250Z');
const { startMs, endMs } = monthOf(NOW);
const context = governanceContext(storePlatform, { clock: () => NOW });

/** An instant around the month, often on a boundary or a whole or half second away from one. */
const instant = fc.oneof(
  fc.integer({ min: startMs - 3 * 86_400_000, max: endMs + 86_400_000 }),
  fc.constantFrom(startMs, NOW.getTime(), endMs),
  fc
    .tuple(
      fc.constantFrom(startMs, NOW.getTime(), endMs),
      fc.integer({ min: -5, max: 5 }),
      fc.constantFrom(0, 1, 499, 500, 501, 999),
    )
    .map(([at, seconds, ms]) => at + seconds * 1000 + ms),
);

const reservation = fc.record({
  team: fc.constantFrom(TEAM, TEAM, TEAM, OTHER_TEAM),
  pool: fc.constantFrom('a100', 'mig', 'h100', 'spot', 'retired-pool'),
  gpuUnits: fc.constantFrom(720, 2520, 5040, 10080, 40320),
  state: fc.constantFrom('held', 'held', 'released', 'pending'),
  heldMs: instant,
  releasedAfterMs: fc.option(fc.integer({ min: 0, max: 40 * 86_400_000 })),
});

type ReservationCase = typeof reservation extends fc.Arbitrary<infer T>
  ? T
  : never;

/** A reservation of one GPU on `a100` held from `heldMs` (when released, 1.5 s later). */
function halfSecond(heldMs: number): ReservationCase {
  return {
    team: TEAM,
    pool: 'a100',
    gpuUnits: 5040,
    state: 'held',
    heldMs,
    releasedAfterMs: 1500,
  };
}

describe.each(databases.eachSupportedId())('month spend on %p', id => {
  let knex: Knex;

  beforeAll(async () => {
    knex = await databases.init(id);
    // Migrates the store's tables.
    await DatabaseGpuStore.create({
      database: mockServices.database({ knex }),
      platform: storePlatform,
    });
  });

  it('counts in SQL what admission counts reservation by reservation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(reservation, { maxLength: 25 }),
        fc.nat(),
        async (reservations, excludedIndex) => {
          await knex('reservations').delete();
          const rows: ReservationRow[] = reservations.map(r => {
            const held = r.state !== 'pending';
            return {
              id: randomUUID(),
              service_id: null,
              team: r.team,
              pool: r.pool,
              gpu_units: r.gpuUnits,
              monthly_cost_micros: 1,
              state: r.state,
              created_at: new Date(r.heldMs),
              held_at: held ? new Date(r.heldMs) : null,
              released_at:
                r.state === 'released'
                  ? new Date(r.heldMs + (r.releasedAfterMs ?? 0))
                  : null,
              mig_profile: null,
            };
          });
          if (rows.length > 0) {
            await knex('reservations').insert(rows);
          }
          const excluded = rows.length
            ? rows[excludedIndex % rows.length].id
            : undefined;
          const counted = rows
            .filter(
              r =>
                r.team === TEAM &&
                r.held_at !== null &&
                (r.released_at === null ||
                  (r.released_at as Date).getTime() > startMs),
            )
            .map(spendingReservationOf);
          for (const exclude of [undefined, excluded]) {
            expect(
              await readMonthSpend(knex, context, TEAM, NOW, exclude),
            ).toEqual(monthSpendOf(counted, context.prices, NOW, exclude));
          }
        },
      ),
      {
        numRuns: 100,
        // Half a second this month, and a second and a half of the rest of it: rounded up, as Math.round does.
        examples: [
          [
            [
              halfSecond(NOW.getTime() - 500),
              halfSecond(endMs - 1500),
              { ...halfSecond(startMs - 1000), state: 'released' as const },
            ],
            0,
          ],
        ],
      },
    );
  });

  it('answers one row per pool, size and held seconds, however many reservations share them', async () => {
    await knex('reservations').delete();
    const heldAt = new Date(NOW.getTime() - 3_600_000);
    await knex('reservations').insert(
      Array.from({ length: 500 }, () => ({
        id: randomUUID(),
        service_id: null,
        team: TEAM,
        pool: 'a100',
        gpu_units: 5040,
        monthly_cost_micros: 1,
        state: 'held',
        created_at: heldAt,
        held_at: heldAt,
        released_at: null,
        mig_profile: null,
      })),
    );
    const queries: unknown[][] = [];
    const onResponse = (response: unknown) =>
      queries.push(Array.isArray(response) ? response : [response]);
    knex.on('query-response', onResponse);
    const month = await readMonthSpend(knex, context, TEAM, NOW);
    knex.off('query-response', onResponse);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toHaveLength(1);
    // 500 GPUs held for the hour: $500.004 a GPU-month of 730 hours, one hour each, rounded per reservation.
    expect(month.monthToDate).toBe(500 * 684_938);
  });
});
