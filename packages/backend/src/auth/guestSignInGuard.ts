import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';

/**
 * Why the auth configuration is unsafe, or undefined when it is not: outside development, guest sign-in that is
 * switched on (`auth.providers.guest.dangerouslyAllowOutsideDevelopment`) beside another sign-in provider, such as
 * the proxy provider `oauth2Proxy`, lets anyone who reaches the backend sign in as the guest user, past the proxy.
 */
export function unsafeGuestSignIn(
  config: Config,
  nodeEnv: string | undefined,
): string | undefined {
  if (nodeEnv === 'development') return undefined;
  const providers = config.getOptionalConfig('auth.providers');
  const guest = providers?.getOptionalConfig('guest');
  if (!guest?.getOptionalBoolean('dangerouslyAllowOutsideDevelopment')) {
    return undefined;
  }
  const others = (providers?.keys() ?? []).filter(id => id !== 'guest');
  if (others.length === 0) return undefined;
  return `Guest sign-in is on (auth.providers.guest.dangerouslyAllowOutsideDevelopment) beside ${others
    .map(id => `auth.providers.${id}`)
    .join(
      ', ',
    )} outside development (NODE_ENV=${nodeEnv}): anyone who reaches the backend could sign in as the guest user without the other provider. Remove auth.providers.guest or the other provider.`;
}

/** Refuses to start the backend with the sign-in configuration {@link unsafeGuestSignIn} describes. */
export const guestSignInGuard = createBackendModule({
  pluginId: 'auth',
  moduleId: 'guest-sign-in-guard',
  register(reg) {
    reg.registerInit({
      deps: { config: coreServices.rootConfig },
      async init({ config }) {
        const problem = unsafeGuestSignIn(config, process.env.NODE_ENV);
        if (problem) throw new Error(problem);
      },
    });
  },
});
