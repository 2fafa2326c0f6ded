import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { NotAllowedError } from '@backstage/errors';
import {
  authProvidersExtensionPoint,
  createProxyAuthenticator,
  createProxyAuthProviderFactory,
  SignInResolver,
} from '@backstage/plugin-auth-node';

/** The provider id: `auth.providers.demoApprover` configures it, `/api/auth/demoApprover/refresh` signs in. */
export const DEMO_APPROVER_PROVIDER = 'demoApprover';

/** Whether the provider may sign anyone in: in development, or where `dangerouslyAllowOutsideDevelopment` says so. */
function enabled(config: Config, nodeEnv: string | undefined): boolean {
  return (
    nodeEnv === 'development' ||
    config.getOptionalBoolean('dangerouslyAllowOutsideDevelopment') === true
  );
}

/**
 * Signs in, without credentials, as the catalog user `auth.providers.demoApprover.userEntityRef` (the demo's platform
 * approver, examples/org.yaml's alice): the guest provider's model for a second demo user, so that the demo has
 * someone other than the guest, who made the requests, to decide them (four eyes). Development only, like the guest
 * provider, unless `dangerouslyAllowOutsideDevelopment` is set.
 */
export function demoApproverSignIn(
  config: Config,
  nodeEnv?: string,
): SignInResolver<{}> {
  const userEntityRef = config.getString('userEntityRef');
  return async (_info, ctx) => {
    if (!enabled(config, nodeEnv ?? process.env.NODE_ENV)) {
      throw new NotAllowedError(
        `The ${DEMO_APPROVER_PROVIDER} sign-in is for the local demo only: it signs anyone in as ${userEntityRef}`,
      );
    }
    return ctx.signInWithCatalogUser({ entityRef: userEntityRef });
  };
}

const demoApproverAuthenticator = createProxyAuthenticator({
  defaultProfileTransform: async () => ({ profile: {} }),
  initialize: () => undefined,
  async authenticate() {
    return { result: {} };
  },
});

/** Registers the `demoApprover` sign-in provider; it is only served where `auth.providers.demoApprover` is configured. */
export const demoApproverAuthModule = createBackendModule({
  pluginId: 'auth',
  moduleId: 'demo-approver-provider',
  register(reg) {
    reg.registerInit({
      deps: {
        providers: authProvidersExtensionPoint,
        config: coreServices.rootConfig,
      },
      async init({ providers, config }) {
        const providerConfig = config.getOptionalConfig(
          `auth.providers.${DEMO_APPROVER_PROVIDER}`,
        );
        if (!providerConfig) return;
        providers.registerProvider({
          providerId: DEMO_APPROVER_PROVIDER,
          factory: createProxyAuthProviderFactory({
            authenticator: demoApproverAuthenticator,
            signInResolver: demoApproverSignIn(providerConfig),
          }),
        });
      },
    });
  },
});
