/*
 * Migration 20261202200000_reservation_mig_profile: reservations record the MIG profile they hold, so what every
 * team holds per pool and profile (pool capacity, read on every create and quote) is summed from the reservations'
 * index instead of joining every held reservation to its service. Existing reservations take their service's profile.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import {
  demoPlatformConfig,
  GPU_UNITS_PER_EQUIVALENT,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { readHeldByPool, readPoolHeld } from './governance';

// PostgreSQL runs when BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is set.
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const directory = resolvePackagePath(
  '@gpu-platform/backstage-plugin-gpu-backend',
  'migrations',
);
const MIGRATION = '20261202200000_reservation_mig_profile.js';
const units = (gpuEquivalents: number) =>
  Math.round(gpuEquivalents * GPU_UNITS_PER_EQUIVALENT);

const mig = {
  team: 'ml-platform',
  namespace: 'ml-serving',
  environment: 'dev',
  tier: 'mig' as const,
  pool: 'a100-mig',
  heldAt: '2026-11-10T00:00:00Z',
  runs: [],
};

describe.each(databases.eachSupportedId())(
  'migration reservation_mig_profile on %p',
  id => {
    it('sums what is held per pool and MIG profile from the reservations, before and after the migration', async () => {
      const knex = await databases.init(id);
      const store = await DatabaseGpuStore.create({
        database: mockServices.database({ knex }),
        platform,
      });
      const ids = await seedUsageServices({
        store,
        knex,
        platform,
        services: [
          { ...mig, name: 'small-a', migProfile: '1g.10gb', gpuEquivalents: 1 / 7 },
          { ...mig, name: 'small-b', migProfile: '1g.10gb', gpuEquivalents: 2 / 7 },
          { ...mig, name: 'large', migProfile: '3g.40gb', gpuEquivalents: 3 / 7 },
          {
            ...mig,
            name: 'gone',
            migProfile: '2g.20gb',
            gpuEquivalents: 2 / 7,
            releasedAt: '2026-11-11T00:00:00Z',
          },
          {
            ...mig,
            name: 'whole',
            tier: 'dedicated',
            pool: 'l4-ondemand',
            gpuEquivalents: 2,
          },
        ],
      });
      const expected = {
        'a100-mig': {
          units: units(1 / 7) + units(2 / 7) + units(3 / 7),
          unitsByProfile: {
            '1g.10gb': units(1 / 7) + units(2 / 7),
            '3g.40gb': units(3 / 7),
          },
        },
        'l4-ondemand': { units: units(2), unitsByProfile: {} },
      };
      const reservationOf = async (name: string) =>
        (await knex('reservations').where({ service_id: ids[name] }).first())
          .id as string;

      // Written by the store: each reservation records its profile.
      expect(await readHeldByPool(knex)).toEqual(expected);
      // A change gives back its held reservation: left out, and a profile only it held is absent.
      expect(
        await readPoolHeld(knex, 'a100-mig', await reservationOf('large')),
      ).toEqual({
        units: units(1 / 7) + units(2 / 7),
        unitsByProfile: { '1g.10gb': units(1 / 7) + units(2 / 7) },
      });
      expect(
        await readHeldByPool(knex, {
          excludeReservationId: await reservationOf('whole'),
        }),
      ).toEqual({ 'a100-mig': expected['a100-mig'] });
      // A released reservation left out changes nothing.
      expect(
        await readPoolHeld(knex, 'a100-mig', await reservationOf('gone')),
      ).toEqual(expected['a100-mig']);

      // Reservations stored before the migration take their service's profile. The migrations after it are undone
      // first, newest first, as a rollback would (the held sums of a later one count the profile column).
      for (;;) {
        const [completed] = await knex.migrate.list({ directory });
        const last = completed[completed.length - 1];
        await knex.migrate.down({ directory });
        if (last.name === MIGRATION) break;
      }
      expect(await knex.schema.hasColumn('reservations', 'mig_profile')).toBe(
        false,
      );
      await knex.migrate.latest({ directory });
      const profiles = Object.fromEntries(
        await Promise.all(
          Object.keys(ids).map(async name => [
            name,
            (
              await knex('reservations')
                .where({ service_id: ids[name] })
                .first()
            ).mig_profile,
          ]),
        ),
      );
      expect(profiles).toEqual({
        'small-a': '1g.10gb',
        'small-b': '1g.10gb',
        large: '3g.40gb',
        gone: '2g.20gb',
        whole: null,
      });
      expect(await readHeldByPool(knex)).toEqual(expected);
      expect(await readPoolHeld(knex, 'a100-mig')).toEqual(
        expected['a100-mig'],
      );
    });
  },
);
