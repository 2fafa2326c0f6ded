import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { AuthenticationError, isError } from '@backstage/errors';
import {
  oauth2ProxyAuthenticator,
  oauth2ProxySignInResolvers,
} from '@backstage/plugin-auth-backend-module-oauth2-proxy-provider';
import {
  authProvidersExtensionPoint,
  commonSignInResolvers,
  createProxyAuthProviderFactory,
  SignInResolverFactory,
} from '@backstage/plugin-auth-node';

/**
 * A resolver that answers 401 for a caller it cannot sign in: no user forwarded, or a user the catalog does not
 * have. The provider's own resolvers throw a plain Error (500) or NotFoundError (404) there; the cause goes to the
 * log, the caller reads only that sign-in failed.
 */
export function refusingUnknownUsers(
  factory: SignInResolverFactory,
  logWarning: (message: string) => void,
): SignInResolverFactory {
  const wrapped: SignInResolverFactory = (options?: unknown) => {
    const resolve = factory(options);
    return async (info, context) => {
      try {
        return await resolve(info, context);
      } catch (error) {
        if (isError(error) && error.name === 'NotAllowedError') throw error;
        logWarning(
          `Proxy sign-in refused: ${isError(error) ? error.message : error}`,
        );
        throw new AuthenticationError(
          'Sign-in failed: the forwarded user is missing or not a user of the catalog',
        );
      }
    };
  };
  wrapped.optionsJsonSchema = factory.optionsJsonSchema;
  return wrapped;
}

/**
 * The `oauth2Proxy` sign-in provider (X-Forwarded-User from an authenticating proxy such as oauth2-proxy), as
 * `@backstage/plugin-auth-backend-module-oauth2-proxy-provider` registers it, except that a caller it cannot sign in
 * gets 401 (see {@link refusingUnknownUsers}).
 */
export const oauth2ProxySignInModule = createBackendModule({
  pluginId: 'auth',
  moduleId: 'oauth2-proxy-provider',
  register(reg) {
    reg.registerInit({
      deps: {
        providers: authProvidersExtensionPoint,
        logger: coreServices.logger,
      },
      async init({ providers, logger }) {
        const factories: Record<string, SignInResolverFactory> = {
          ...commonSignInResolvers,
          ...oauth2ProxySignInResolvers,
        };
        const warn = (message: string) => logger.warn(message);
        providers.registerProvider({
          providerId: 'oauth2Proxy',
          factory: createProxyAuthProviderFactory({
            authenticator: oauth2ProxyAuthenticator,
            signInResolverFactories: Object.fromEntries(
              Object.entries(factories).map(([name, factory]) => [
                name,
                refusingUnknownUsers(factory, warn),
              ]),
            ),
          }),
        });
      },
    });
  },
});
