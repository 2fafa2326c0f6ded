import {
  ApiBlueprint,
  ApiRef,
  BackstageIdentityApi,
  createApiRef,
  discoveryApiRef,
  ProfileInfoApi,
  SessionApi,
} from '@backstage/frontend-plugin-api';
import { ProxyProviderAuth } from './ProxyProviderAuth';

/** The backend's sign-in provider of the demo's second user (packages/backend/src/auth/demoApproverProvider.ts). */
export const DEMO_APPROVER_PROVIDER = 'demoApprover';

/** Sign-in as the demo's platform approver, Alice. */
export const demoApproverAuthApiRef: ApiRef<
  ProfileInfoApi & BackstageIdentityApi & SessionApi
> = createApiRef({ id: 'app.auth.demo-approver' });

export const demoApproverAuthApi = ApiBlueprint.make({
  name: 'demo-approver-auth',
  params: defineParams =>
    defineParams({
      api: demoApproverAuthApiRef,
      deps: { discoveryApi: discoveryApiRef },
      factory: ({ discoveryApi }) =>
        new ProxyProviderAuth({
          discoveryApi,
          provider: DEMO_APPROVER_PROVIDER,
        }),
    }),
});

/** The card of the sign-in page that signs in as Alice, saying who she is and why the demo has her. */
export const demoApproverSignInProvider = {
  id: 'demo-approver-auth-provider',
  title: 'Alice (platform team)',
  message:
    'Approves GPU requests. The guest requests services, and nobody decides their own request (four eyes): ' +
    'sign in as Alice to approve or reject what the guest asked for.',
  apiRef: demoApproverAuthApiRef,
};
