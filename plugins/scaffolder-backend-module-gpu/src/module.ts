import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { scaffolderActionsExtensionPoint } from '@backstage/plugin-scaffolder-node';
import { createServiceCreateAction } from './actions/serviceCreate';
import { createServiceQuoteAction } from './actions/serviceQuote';

/**
 * Registers the `gpu:service:*` actions with the scaffolder.
 *
 * @public
 */
export const scaffolderModuleGpu = createBackendModule({
  pluginId: 'scaffolder',
  moduleId: 'gpu',
  register({ registerInit }) {
    registerInit({
      deps: {
        scaffolderActions: scaffolderActionsExtensionPoint,
        discovery: coreServices.discovery,
        auth: coreServices.auth,
      },
      async init({ scaffolderActions, discovery, auth }) {
        scaffolderActions.addActions(
          createServiceQuoteAction({ discovery, auth }),
          createServiceCreateAction({ discovery, auth }),
        );
      },
    });
  },
});
