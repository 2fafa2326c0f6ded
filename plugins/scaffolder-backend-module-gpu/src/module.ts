import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { ScmIntegrations } from '@backstage/integration';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { scaffolderActionsExtensionPoint } from '@backstage/plugin-scaffolder-node';
import { createBatchSubmitAction } from './actions/batchSubmit';
import { createCatalogRegisterAction } from './actions/catalogRegister';
import { createCatalogWriteAction } from './actions/catalogWrite';
import { createGiteaPullRequestAction } from './actions/giteaPullRequest';
import { createPlatformRenderAction } from './actions/platformRender';
import { createServiceChangeAction } from './actions/serviceChange';
import { createServiceConfirmAction } from './actions/serviceConfirm';
import { createServiceCreateAction } from './actions/serviceCreate';
import { createServiceDeleteAction } from './actions/serviceDelete';
import { createServiceQuoteAction } from './actions/serviceQuote';
import { createServiceRenderAction } from './actions/serviceRender';
import { createServiceRetryAction } from './actions/serviceRetry';
import { LocalCatalogDirectory } from './catalog/LocalCatalogDirectory';

/**
 * Registers the `gpu:service:*` actions, `gpu:batch:submit`, `gpu:platform:render`, `gpu:catalog:write`,
 * `gpu:catalog:register` and `gpu:gitea:pull-request` with the scaffolder.
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
        userInfo: coreServices.userInfo,
        config: coreServices.rootConfig,
        catalog: catalogServiceRef,
      },
      async init({
        scaffolderActions,
        discovery,
        auth,
        userInfo,
        config,
        catalog,
      }) {
        const localCatalog = LocalCatalogDirectory.fromConfig(config);
        scaffolderActions.addActions(
          createServiceQuoteAction({ discovery, auth }),
          createServiceCreateAction({ discovery, auth, catalog, localCatalog }),
          createServiceRenderAction({ discovery, auth }),
          createServiceChangeAction({ discovery, auth }),
          createServiceConfirmAction({ discovery, auth }),
          createServiceRetryAction({ discovery, auth }),
          createServiceDeleteAction({ discovery, auth, catalog, localCatalog }),
          createCatalogWriteAction({ userInfo }),
          createCatalogRegisterAction({ catalog, userInfo, localCatalog }),
          createBatchSubmitAction({ discovery, auth }),
          createPlatformRenderAction({ discovery, auth }),
          createGiteaPullRequestAction({
            integrations: ScmIntegrations.fromConfig(config),
          }),
        );
      },
    });
  },
});
