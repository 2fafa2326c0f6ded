import { DatabaseManager } from '@backstage/backend-defaults/database';
import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { ConfigReader } from '@backstage/config';
import type { Knex } from 'knex';

/**
 * The database service for `startTestBackend`'s features: Backstage's own (`DatabaseManager`, SQLite in memory unless
 * `backend.database` is configured), with each plugin's client destroyed when the backend stops.
 *
 * `@backstage/backend-defaults` 0.19.0 destroys no client on shutdown: its check for SQLite,
 * `connection.client.config.includes('sqlite3')`, throws on the config object and `Promise.allSettled` hides it. A
 * stopped test backend on SQLite then keeps its pool, whose reaper is a 1-second interval that never ends (the pool
 * keeps its one connection), and the Jest worker that ran it cannot exit ("A worker process has failed to exit
 * gracefully").
 *
 * @public
 */
export const databaseClosedOnShutdown = createServiceFactory({
  service: coreServices.database,
  deps: {
    config: coreServices.rootConfig,
    lifecycle: coreServices.lifecycle,
    logger: coreServices.logger,
    pluginMetadata: coreServices.pluginMetadata,
  },
  async createRootContext({ config }) {
    return DatabaseManager.fromConfig(
      config.getOptional('backend.database')
        ? config
        : new ConfigReader({
            backend: {
              database: { client: 'better-sqlite3', connection: ':memory:' },
            },
          }),
    );
  },
  async factory({ pluginMetadata, lifecycle, logger }, manager) {
    const database = manager.forPlugin(pluginMetadata.getId(), {
      lifecycle,
      logger,
    });
    let client: Promise<Knex> | undefined;
    lifecycle.addShutdownHook(async () => {
      if (client) await (await client).destroy();
    });
    return {
      ...database,
      getClient: () => (client ??= database.getClient()),
    };
  },
});
