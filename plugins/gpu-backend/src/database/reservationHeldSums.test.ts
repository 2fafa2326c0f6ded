/*
 * Migration 20261204210000_reservation_held_sums: what held reservations hold per pool and MIG profile is kept in
 * `reservation_held_sums` by triggers on `reservations`. Every kind of write to a reservation must leave the sums
 * equal to the sums of the reservations themselves, and the migration starts them from the reservations stored.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import { GPU_UNITS_PER_EQUIVALENT } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import { dedicatedCreateInput } from './__testUtils__/dedicatedCreateInput';
import { storePlatform } from './__testUtils__/storePlatform';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { readHeldByPool } from './governance';
import { readInteger } from './units';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const directory = resolvePackagePath(
  '@gpu-platform/backstage-plugin-gpu-backend',
  'migrations',
);
const MIGRATION = '20261204210000_reservation_held_sums.js';
const ADMIN = 'user:default/platform-admin';

type Sums = Record<string, { units: number; reservations: number }>;

/** The kept sums, by pool and profile ('' outside MIG), leaving out groups nothing holds any more. */
async function keptSums(knex: Knex): Promise<Sums> {
  const rows = await knex('reservation_held_sums').where(
    'reservations',
    '>',
    0,
  );
  return Object.fromEntries(
    rows.map(row => [
      `${row.pool}/${row.mig_profile}`,
      {
        units: readInteger(row.gpu_units),
        reservations: readInteger(row.reservations),
      },
    ]),
  );
}

/** The same sums computed from every held reservation. */
async function summedFromReservations(knex: Knex): Promise<Sums> {
  const rows = await knex('reservations')
    .where('state', 'held')
    .select('pool', 'mig_profile', 'gpu_units');
  const sums: Sums = {};
  for (const row of rows) {
    const key = `${row.pool}/${row.mig_profile ?? ''}`;
    const sum = (sums[key] ??= { units: 0, reservations: 0 });
    sum.units += readInteger(row.gpu_units);
    sum.reservations += 1;
  }
  return sums;
}

describe.each(databases.eachSupportedId())(
  'reservation held sums on %p',
  id => {
    let knex: Knex;
    let store: DatabaseGpuStore;

    beforeAll(async () => {
      knex = await databases.init(id);
      store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform: storePlatform,
      });
      await store.putQuota({
        team: 'search',
        quota: { pools: { a100: 2, h100: 8 }, monthlyBudgetMicros: 10 ** 12 },
        actor: ADMIN,
      });
    });

    async function expectKeptSums(expected: Sums) {
      expect(await summedFromReservations(knex)).toEqual(expected);
      expect(await keptSums(knex)).toEqual(expected);
    }

    it('follows every write to a reservation, and the reads of pool holdings use them', async () => {
      const create = (name: string, pool: string) =>
        store.createServiceWithReservation(
          dedicatedCreateInput({ name, team: 'search', pool, actor: ADMIN }),
        );
      const one = GPU_UNITS_PER_EQUIVALENT;
      const a = await create('held-a', 'a100');
      const b = await create('held-b', 'a100');
      // Over the a100 quota of 2: pending, holds nothing until approved.
      const c = await create('pending-c', 'a100');
      expect(c.reservation.state).toBe('pending');
      await create('held-d', 'h100');
      await expectKeptSums({
        'a100/': { units: 2 * one, reservations: 2 },
        'h100/': { units: one, reservations: 1 },
      });
      expect(await readHeldByPool(knex)).toEqual({
        a100: { units: 2 * one, unitsByProfile: {} },
        h100: { units: one, unitsByProfile: {} },
      });

      // A release through the store.
      await store.releaseReservation({
        serviceId: a.service.id,
        actor: ADMIN,
      });
      await expectKeptSums({
        'a100/': { units: one, reservations: 1 },
        'h100/': { units: one, reservations: 1 },
      });

      const reservations = () => knex('reservations');
      // Pending to held, then a change of pool, profile and units in one update.
      await reservations()
        .where({ id: c.reservation.id })
        .update({ state: 'held' });
      await reservations()
        .where({ id: c.reservation.id })
        .update({ pool: 'mig', mig_profile: '1g.10gb', gpu_units: 720 });
      await expectKeptSums({
        'a100/': { units: one, reservations: 1 },
        'h100/': { units: one, reservations: 1 },
        'mig/1g.10gb': { units: 720, reservations: 1 },
      });
      expect((await readHeldByPool(knex, { pool: 'mig' })).mig).toEqual({
        units: 720,
        unitsByProfile: { '1g.10gb': 720 },
      });

      // An update that leaves the held amounts alone, one of a released reservation, and a row deleted.
      await reservations()
        .where({ id: b.reservation.id })
        .update({ monthly_cost_micros: 1 });
      await reservations()
        .where({ id: a.reservation.id })
        .update({ gpu_units: 99 * one });
      await reservations().where({ id: c.reservation.id }).delete();
      await expectKeptSums({
        'a100/': { units: one, reservations: 1 },
        'h100/': { units: one, reservations: 1 },
      });

      // Deleting the service deletes its reservations by cascade.
      await knex('services').where({ id: b.service.id }).delete();
      await expectKeptSums({ 'h100/': { units: one, reservations: 1 } });
      expect(await readHeldByPool(knex)).toEqual({
        h100: { units: one, unitsByProfile: {} },
      });
    });

    it('the migration starts the sums from the reservations stored, and removes them on the way down', async () => {
      await store.createServiceWithReservation(
        dedicatedCreateInput({
          name: 'before-down',
          team: 'search',
          pool: 'h100',
          actor: ADMIN,
        }),
      );
      const before = await summedFromReservations(knex);
      expect(before['h100/'].reservations).toBeGreaterThanOrEqual(2);

      await knex.migrate.down({ directory, name: MIGRATION });
      expect(await knex.schema.hasTable('reservation_held_sums')).toBe(false);
      // Written while no trigger counts it.
      await knex('reservations')
        .where({ state: 'held', pool: 'h100' })
        .update({ gpu_units: 2 * GPU_UNITS_PER_EQUIVALENT });
      await knex.migrate.latest({ directory });

      const after = await summedFromReservations(knex);
      expect(after['h100/']).toEqual({
        units: before['h100/'].reservations * 2 * GPU_UNITS_PER_EQUIVALENT,
        reservations: before['h100/'].reservations,
      });
      expect(await keptSums(knex)).toEqual(after);
      // The triggers are back.
      await store.createServiceWithReservation(
        dedicatedCreateInput({
          name: 'after-up',
          team: 'search',
          pool: 'h100',
          actor: ADMIN,
        }),
      );
      expect(await keptSums(knex)).toEqual(await summedFromReservations(knex));
    });
  },
);
