import { ConfigReader } from '@backstage/config';

type ConfigData = NonNullable<ConstructorParameters<typeof ConfigReader>[0]>;
import { unsafeGuestSignIn } from './guestSignInGuard';

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
