import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import knexFactory from 'knex';
import { gpuPlugin } from './plugin';

/** The plugin with one cluster in apply mode, outside Jest's NODE_ENV=test, on the given database. */
async function startApplying(
  database: ReturnType<typeof mockServices.database.factory>,
) {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await startTestBackend({
      features: [
        gpuPlugin,
        database,
        mockServices.rootConfig.factory({
          data: {
            gpu: {
              ...demoPlatformConfig,
              clusters: [{ name: 'gpu-eu', mode: 'apply' }],
            },
            kubernetes: {
              clusterLocatorMethods: [
                {
                  type: 'config',
                  clusters: [
                    {
                      name: 'gpu-eu',
                      // Refused at once: a name that does not resolve can keep the informers' lookups in flight for
                      // the resolver's timeout (5 s here), past the test.
                      url: 'https://127.0.0.1:1',
                      authProvider: 'serviceAccount',
                      serviceAccountToken: 'sa-token',
                    },
                  ],
                },
              ],
            },
          },
        }),
      ],
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}

describe('apply mode and the database', () => {
  it('refuses to start with SQLite in memory, saying why and what to configure', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: ':memory:',
      useNullAsDefault: true,
    });
    try {
      await expect(
        startApplying(mockServices.database.factory({ knex })),
      ).rejects.toThrow(
        /gpu\.clusters 'gpu-eu' is in mode apply, but the gpu plugin's database is SQLite in memory: a restart would forget every service and reservation while their objects keep running in the cluster\. Configure a durable database/,
      );
    } finally {
      await knex.destroy();
    }
  });

  it('starts with SQLite in a file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-durable-'));
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: path.join(dir, 'gpu.sqlite') },
      useNullAsDefault: true,
    });
    try {
      const backend = await startApplying(
        mockServices.database.factory({ knex }),
      );
      expect(backend.server.listening).toBe(true);
      await backend.stop();
    } finally {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
