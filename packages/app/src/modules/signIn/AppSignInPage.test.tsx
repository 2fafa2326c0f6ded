import { configApiRef, discoveryApiRef } from '@backstage/frontend-plugin-api';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AppSignInPage } from './AppSignInPage';
import { demoApproverAuthApiRef } from './demoApproverAuth';
import { ProxyProviderAuth } from './ProxyProviderAuth';

function renderSignIn(
  config: object,
  onSignInSuccess = jest.fn(),
  storage = new Map<string, string>(),
) {
  const discoveryApi = mockApis.discovery({ baseUrl: 'http://backstage.test' });
  return renderInTestApp(
    <TestApiProvider
      apis={[
        [
          demoApproverAuthApiRef,
          new ProxyProviderAuth({
            discoveryApi,
            provider: 'demoApprover',
            storage: {
              getItem: key => storage.get(key) ?? null,
              setItem: (key, value) => storage.set(key, value),
              removeItem: key => storage.delete(key),
            },
          }),
        ],
        [
          configApiRef,
          mockApis.config({ data: { app: { title: 'GPU' }, ...config } }),
        ],
        [discoveryApiRef, discoveryApi],
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

  it("offers the demo's approver beside the guest, signs in as her through demoApprover, and forgets her on sign-out", async () => {
    const fetchSpy = jest.spyOn(global, 'fetch').mockResolvedValue(
      new Response(
        JSON.stringify({
          profile: { displayName: 'Alice (platform)' },
          backstageIdentity: {
            token: 'a.token.sig',
            expiresInSeconds: 3600,
            identity: {
              type: 'user',
              userEntityRef: 'user:default/alice',
              ownershipEntityRefs: [
                'user:default/alice',
                'group:default/platform-team',
              ],
            },
          },
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      ),
    );
    const onSignInSuccess = jest.fn();
    const storage = new Map<string, string>();
    await renderSignIn(
      { app: { title: 'GPU', signIn: { demoApprover: true } } },
      onSignInSuccess,
      storage,
    );
    expect(
      await screen.findByRole('button', { name: 'Enter' }),
    ).toBeInTheDocument();
    const card = screen
      .getByText('Alice (platform team)')
      .closest('[class*="MuiCard-root"]') as HTMLElement;
    expect(card).toHaveTextContent(
      'sign in as Alice to approve or reject what the guest asked for',
    );
    expect(fetchSpy).not.toHaveBeenCalled();

    await userEvent.click(within(card).getByRole('button'));
    await waitFor(() => expect(onSignInSuccess).toHaveBeenCalledTimes(1));
    expect(String(fetchSpy.mock.calls[0][0])).toBe(
      'http://backstage.test/api/auth/demoApprover/refresh',
    );
    const identity = onSignInSuccess.mock.calls[0][0];
    expect(await identity.getBackstageIdentity()).toMatchObject({
      userEntityRef: 'user:default/alice',
    });
    expect(storage.get('app:sign-in:demoApprover')).toBe('true');
    await identity.signOut();
    expect(storage.has('app:sign-in:demoApprover')).toBe(false);
  });

  it('offers only the guest without app.signIn.demoApprover', async () => {
    await renderSignIn({});
    expect(
      await screen.findByRole('button', { name: 'Enter' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Alice (platform team)')).toBeNull();
  });
});
