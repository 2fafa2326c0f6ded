import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { readPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import { createRouter } from './router';

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
      },
      async init({ config, httpAuth, httpRouter, logger }) {
        const platform = readPlatformConfig(config);
        logger.info('Loaded GPU platform', {
          pools: platform.pools.length,
          teams: platform.teams.length,
        });
        httpRouter.use(await createRouter({ httpAuth, platform }));
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
      },
    });
  },
});
