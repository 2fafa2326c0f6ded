import { createBackend } from '@backstage/backend-defaults';
import { catalogModuleGpuServiceBinding } from '@gpu-platform/backstage-plugin-scaffolder-backend-module-gpu';
import { demoApproverAuthModule } from './auth/demoApproverProvider';
import { guestSignInGuard } from './auth/guestSignInGuard';
import { oauth2ProxySignInModule } from './auth/oauth2ProxySignInModule';
import { localTextPlaceholderModule } from './catalog/localTextPlaceholderModule';
import { kubernetesOwnedObjectsModule } from './kubernetes/kubernetesOwnedObjectsModule';
import { gpuPolicyModule } from './permissions/gpuPolicyModule';

const backend = createBackend();

backend.add(import('@backstage/plugin-app-backend'));
backend.add(import('@backstage/plugin-proxy-backend'));

backend.add(import('@backstage/plugin-auth-backend'));
backend.add(import('@backstage/plugin-auth-backend-module-guest-provider'));
// The demo's second user, the platform approver alice (auth.providers.demoApprover; development only).
backend.add(demoApproverAuthModule);
// Sign-in behind an authenticating proxy (oauth2-proxy's X-Forwarded-User header); only active where
// auth.providers.oauth2Proxy is configured (app-config.e2e.yaml), see packages/app/README.md. A user the catalog
// does not have gets 401.
backend.add(oauth2ProxySignInModule);
// Outside development, guest sign-in beside another provider stops the start-up.
backend.add(guestSignInGuard);

backend.add(import('@backstage/plugin-catalog-backend'));
backend.add(
  import('@backstage/plugin-catalog-backend-module-scaffolder-entity-model'),
);
backend.add(import('@backstage/plugin-catalog-backend-module-logs'));
// $text placeholders of local catalog files read files of this repository (the gpu API's definition).
backend.add(localTextPlaceholderModule);
// A team's component defined outside the GPU templates' directory (examples/entities.yaml's summariser) gets the id
// of the GPU service bound to it, so its GPU card shows.
backend.add(catalogModuleGpuServiceBinding);

backend.add(import('@backstage/plugin-scaffolder-backend'));
// publish:github:pull-request and publish:gitlab:merge-request of the GitOps templates; they need a token under
// integrations.github / integrations.gitlab (templates/README.md), which the demo does not configure.
backend.add(import('@backstage/plugin-scaffolder-backend-module-github'));
backend.add(import('@backstage/plugin-scaffolder-backend-module-gitlab'));

backend.add(import('@backstage/plugin-permission-backend'));
// Platform groups (gpu.permissions.platformGroups) govern GPUs; teams act on their own services.
backend.add(gpuPolicyModule);

backend.add(import('@backstage/plugin-search-backend'));
backend.add(import('@backstage/plugin-search-backend-module-catalog'));

backend.add(import('@backstage/plugin-kubernetes-backend'));
// The policy keeps the plugin-wide Kubernetes reads to the platform groups; owners read their entities' objects.
backend.add(kubernetesOwnedObjectsModule);
backend.add(import('@backstage/plugin-user-settings-backend'));
backend.add(import('@backstage/plugin-notifications-backend'));
backend.add(import('@backstage/plugin-signals-backend'));

backend.add(import('@gpu-platform/backstage-plugin-gpu-backend'));
// The gpu plugin's actions as MCP tools at /api/mcp-actions/v1 (backend.actions.pluginSources in app-config.yaml),
// called with the user's Backstage token: the gpu permission policy decides each call.
backend.add(import('@backstage/plugin-mcp-actions-backend'));
backend.add(import('@gpu-platform/backstage-plugin-scaffolder-backend-module-gpu'));
backend.start();
