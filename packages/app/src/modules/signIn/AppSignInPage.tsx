import { ProxiedSignInPage, SignInPage } from '@backstage/core-components';
import { configApiRef, useApi } from '@backstage/frontend-plugin-api';
import { SignInPageProps } from '@backstage/plugin-app-react';
import { demoApproverSignInProvider } from './demoApproverAuth';

/** The config key naming the auth provider of an authenticating proxy in front of Backstage (see config.d.ts). */
export const PROXY_PROVIDER_CONFIG_KEY = 'app.signIn.proxyProvider';

/** The config key that offers the demo's second user, Alice, on the sign-in page (see config.d.ts). */
export const DEMO_APPROVER_CONFIG_KEY = 'app.signIn.demoApprover';

/**
 * The app's sign-in page. By default (`./scripts/start`) the guest sign-in (press Enter) and, when
 * `app.signIn.demoApprover` is true (the backend's `auth.providers.demoApprover` signs her in), the demo's second
 * user, Alice of the platform team, who approves what the guest requests (nobody decides their own request). When
 * `app.signIn.proxyProvider` names an auth provider (e.g. `oauth2Proxy` behind oauth2-proxy, as the end-to-end
 * configuration `app-config.e2e.yaml` does), Backstage is deployed behind an authenticating proxy: the page has no
 * user interface of its own and signs in as whoever the proxy's headers say (Backstage's `ProxiedSignInPage`, which
 * calls `/api/auth/<provider>/refresh`; the auth backend's sign-in resolver matches the catalog user).
 */
export function AppSignInPage(props: SignInPageProps) {
  const config = useApi(configApiRef);
  const proxyProvider = config.getOptionalString(PROXY_PROVIDER_CONFIG_KEY);
  if (proxyProvider) {
    return <ProxiedSignInPage {...props} provider={proxyProvider} />;
  }
  const demoApprover = config.getOptionalBoolean(DEMO_APPROVER_CONFIG_KEY);
  return (
    <SignInPage
      {...props}
      providers={
        demoApprover ? ['guest', demoApproverSignInProvider] : ['guest']
      }
    />
  );
}
