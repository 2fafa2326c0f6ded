import { configApiRef, discoveryApiRef } from '@backstage/frontend-plugin-api';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { screen, waitFor } from '@testing-library/react';
import { AppSignInPage } from './AppSignInPage';

function renderSignIn(config: object, onSignInSuccess = jest.fn()) {
  return renderInTestApp(
    <TestApiProvider
      apis={[
        [
          configApiRef,
          mockApis.config({ data: { app: { title: 'GPU' }, ...config } }),
        ],
        [
          discoveryApiRef,
          mockApis.discovery({ baseUrl: 'http://backstage.test' }),
        ],
      ]}
    >
      <AppSignInPage onSignInSuccess={onSignInSuccess} />
    </TestApiProvider>,
  );
}

describe('AppSignInPage', () => {
  afterEach(() => jest.restoreAllMocks());

  it('offers the guest sign-in by default', async () => {
    await renderSignIn({});
    expect(
      await screen.findByRole('button', { name: 'Enter' }),
    ).toBeInTheDocument();
  });

  it('signs in through the proxy provider of app.signIn.proxyProvider, without a page of its own', async () => {
    const token = [
      'e30',
      btoa(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600 })),
      'sig',
    ].join('.');
    const fetchSpy = jest.spyOn(global, 'fetch').mockResolvedValue(
      new Response(
        JSON.stringify({
          profile: { email: 'bob@example.com', displayName: 'bob' },
          backstageIdentity: {
            token,
            identity: {
              type: 'user',
              userEntityRef: 'user:default/bob',
              ownershipEntityRefs: [
                'user:default/bob',
                'group:default/ml-platform',
              ],
            },
          },
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      ),
    );
    const onSignInSuccess = jest.fn();
    await renderSignIn(
      { app: { title: 'GPU', signIn: { proxyProvider: 'oauth2Proxy' } } },
      onSignInSuccess,
    );
    await waitFor(() => expect(onSignInSuccess).toHaveBeenCalledTimes(1));
    expect(String(fetchSpy.mock.calls[0][0])).toBe(
      'http://backstage.test/api/auth/oauth2Proxy/refresh',
    );
    const identity = onSignInSuccess.mock.calls[0][0];
    expect(await identity.getBackstageIdentity()).toMatchObject({
      userEntityRef: 'user:default/bob',
    });
    expect(screen.queryByRole('button', { name: 'Enter' })).toBeNull();
  });
});
