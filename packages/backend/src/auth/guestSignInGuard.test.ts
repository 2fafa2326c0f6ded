import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { databaseClosedOnShutdown } from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { guestSignInGuard, unsafeGuestSignIn } from './guestSignInGuard';

type ConfigData = NonNullable<ConstructorParameters<typeof ConfigReader>[0]>;

const config = (providers: ConfigData) =>
  new ConfigReader({ auth: { providers } });
const guestOutsideDevelopment = {
  guest: { dangerouslyAllowOutsideDevelopment: true },
};
const proxy = {
  oauth2Proxy: {
    signIn: {
      resolvers: [{ resolver: 'forwardedUserMatchingUserEntityName' }],
    },
  },
};

describe('unsafeGuestSignIn', () => {
  it('refuses guest sign-in switched on beside the proxy provider outside development', () => {
    for (const nodeEnv of ['production', undefined, 'test']) {
      expect(
        unsafeGuestSignIn(
          config({ ...guestOutsideDevelopment, ...proxy }),
          nodeEnv,
        ),
      ).toMatch(
        /^Guest sign-in is on \(auth\.providers\.guest\.dangerouslyAllowOutsideDevelopment\) beside auth\.providers\.oauth2Proxy outside development/,
      );
    }
  });

  it('accepts development, guest alone, the proxy alone, and a guest provider that is off outside development', () => {
    expect(
      unsafeGuestSignIn(
        config({ ...guestOutsideDevelopment, ...proxy }),
        'development',
      ),
    ).toBeUndefined();
    expect(
      unsafeGuestSignIn(config(guestOutsideDevelopment), 'production'),
    ).toBeUndefined();
    expect(unsafeGuestSignIn(config(proxy), 'production')).toBeUndefined();
    // app-config.production.yaml's `guest: {}`: the provider itself refuses to sign in outside development.
    expect(
      unsafeGuestSignIn(config({ guest: {}, ...proxy }), 'production'),
    ).toBeUndefined();
    expect(
      unsafeGuestSignIn(new ConfigReader({}), 'production'),
    ).toBeUndefined();
  });
});

describe('guestSignInGuard', () => {
  /** A backend of the guard alone, outside Jest's NODE_ENV=test, with the given sign-in providers. */
  async function start(nodeEnv: string, providers: ConfigData) {
    const before = process.env.NODE_ENV;
    process.env.NODE_ENV = nodeEnv;
    try {
      return await startTestBackend({
        features: [
          databaseClosedOnShutdown,
          guestSignInGuard,
          mockServices.rootConfig.factory({
            data: { auth: { providers } },
          }),
        ],
      });
    } finally {
      process.env.NODE_ENV = before;
    }
  }

  it('stops the start-up outside development with guest sign-in beside the proxy provider, naming both', async () => {
    await expect(
      start('production', { ...guestOutsideDevelopment, ...proxy }),
    ).rejects.toThrow(
      /Guest sign-in is on \(auth\.providers\.guest\.dangerouslyAllowOutsideDevelopment\) beside auth\.providers\.oauth2Proxy outside development \(NODE_ENV=production\)/,
    );
  });

  it('lets the backend start in development, and outside it with the proxy provider alone', async () => {
    for (const [nodeEnv, providers] of [
      ['development', { ...guestOutsideDevelopment, ...proxy }],
      ['production', proxy],
    ] as const) {
      const backend = await start(nodeEnv, providers);
      expect(backend.server.listening).toBe(true);
      await backend.stop();
    }
  });
});
