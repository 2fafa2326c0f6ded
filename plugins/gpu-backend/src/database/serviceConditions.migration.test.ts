/*
 * Migration 20261202100000_service_conditions: services written before reasons were recorded get the reason their
 * status implies, generation 1, and that generation as applied when they reached the cluster.
 */
import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { seedUsageServices } from '../usage/__testUtils__/seedUsageServices';
import { DatabaseGpuStore } from './DatabaseGpuStore';

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
  heldAt: '2026-11-10T00:00:00Z',
  runs: [],
};

describe.each(databases.eachSupportedId())(
  'migration service_conditions on %p',
  id => {
    it('gives existing services the reason their status and sentence imply', async () => {
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
          { ...base, name: 'serving' },
          { ...base, name: 'stuck' },
          { ...base, name: 'queued' },
          { ...base, name: 'published', mode: 'gitops' },
        ],
      });
      await knex.migrate.down({
        directory,
        name: '20261202100000_service_conditions.js',
      });
      const legacy: Record<string, [string, string | null]> = {
        serving: ['ready', null],
        stuck: ['failed', 'Teardown failed: 503 apiserver is shutting down'],
        queued: [
          'starting',
          "Availability lost: Waiting for Kueue admission: couldn't assign flavors",
        ],
        published: ['approved', null],
      };
      for (const [name, [status, reason]] of Object.entries(legacy)) {
        await knex('services')
          .where({ id: ids[name] })
          .update({ status, status_reason: reason });
      }
      await knex.migrate.latest({ directory });

      const stored = Object.fromEntries(
        await Promise.all(
          Object.keys(legacy).map(async name => {
            const service = (await store.getService(ids[name]))!;
            return [
              name,
              {
                reason: service.reason,
                generation: service.generation,
                observedGeneration: service.observedGeneration,
              },
            ];
          }),
        ),
      );
      expect(stored).toEqual({
        serving: { reason: 'Available', generation: 1, observedGeneration: 1 },
        stuck: {
          reason: 'TeardownFailed',
          generation: 1,
          observedGeneration: undefined,
        },
        queued: {
          reason: 'KueuePending',
          generation: 1,
          observedGeneration: 1,
        },
        published: {
          reason: 'RenderedForGitOps',
          generation: 1,
          observedGeneration: undefined,
        },
      });
    });
  },
);
