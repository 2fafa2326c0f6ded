import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { readPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import { DatabaseGpuStore } from './database';
import { createRouter } from './router';
import { createQuoteService } from './services/QuoteService';
import { seedQuotas } from './services/seedQuotas';

/**
 * The `gpu` backend plugin: the platform model, quotes, service requests and governance.
 *
 * @public
 */
export const gpuPlugin = createBackendPlugin({
  pluginId: 'gpu',
  register(env) {
    env.registerInit({
      deps: {
        config: coreServices.rootConfig,
        httpAuth: coreServices.httpAuth,
        httpRouter: coreServices.httpRouter,
        logger: coreServices.logger,
        database: coreServices.database,
      },
      async init({ config, httpAuth, httpRouter, logger, database }) {
        const platform = readPlatformConfig(config);
        logger.info('Loaded GPU platform', {
          pools: platform.pools.length,
          teams: platform.teams.length,
        });
        const store = await DatabaseGpuStore.create({ database });
        await seedQuotas({ platform, store, logger });
        const quotes = createQuoteService({ platform, store });
        httpRouter.use(await createRouter({ httpAuth, platform, quotes }));
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
      },
    });
  },
});
