/*
 * Migration 20261201140000_service_run_periods: services in apply mode applied before run periods were recorded keep
 * the cost they had (one period over their held time); a starting one, and dry-run or GitOps ones, get none.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { DatabaseGpuStore } from './DatabaseGpuStore';
import { listRunPeriods } from './runPeriods';

// PostgreSQL runs when BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is set.
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });
const platform = parsePlatform(demoPlatformConfig);
const directory = resolvePackagePath(
  '@gpu-platform/backstage-plugin-gpu-backend',
  'migrations',
);

const base = {
  team: 'ml-platform',
  namespace: 'ml-serving',
  environment: 'production',
  tier: 'dedicated' as const,
  pool: 'l4-ondemand',
  gpuEquivalents: 1,
  runs: [],
};

describe.each(databases.eachSupportedId())(
  'migration service_run_periods on %p',
  id => {
    it('gives applied services one period over their held time', async () => {
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
          { ...base, name: 'serving', heldAt: '2026-11-10T00:00:00Z' },
          {
            ...base,
            name: 'gone',
            heldAt: '2026-11-01T00:00:00Z',
            releasedAt: '2026-11-05T00:00:00Z',
          },
          { ...base, name: 'queued', heldAt: '2026-11-19T00:00:00Z' },
          {
            ...base,
            name: 'notebook',
            mode: 'dry-run',
            heldAt: '2026-11-01T00:00:00Z',
          },
        ],
      });
      await knex('services')
        .where({ id: ids.queued })
        .update({ status: 'starting' });
      // This migration undone and done again; the ones after it stay (undoing them would rebuild the services table
      // on SQLite).
      await knex.migrate.down({
        directory,
        name: '20261201140000_service_run_periods.js',
      });
      await knex.migrate.latest({ directory });

      const periods = await listRunPeriods(knex, Object.values(ids));
      expect(periods.get(ids.serving)).toEqual([
        {
          serviceId: ids.serving,
          startedAt: '2026-11-10T00:00:00.000Z',
          startedBasis: 'reservation',
        },
      ]);
      expect(periods.get(ids.gone)).toEqual([
        {
          serviceId: ids.gone,
          startedAt: '2026-11-01T00:00:00.000Z',
          startedBasis: 'reservation',
          stoppedAt: '2026-11-05T00:00:00.000Z',
          stopReason: 'released before run periods were recorded',
        },
      ]);
      expect(periods.get(ids.queued)).toBeUndefined();
      expect(periods.get(ids.notebook)).toBeUndefined();
    });
  },
);
