import { createFrontendModule } from '@backstage/frontend-plugin-api';
import { SignInPageBlueprint } from '@backstage/plugin-app-react';
import { demoApproverAuthApi } from './demoApproverAuth';

/** Replaces the app plugin's sign-in page (`sign-in-page:app`, guest only) with {@link AppSignInPage}. */
export const appSignInPage = SignInPageBlueprint.make({
  params: {
    loader: async () => {
      const { AppSignInPage } = await import('./AppSignInPage');
      return AppSignInPage;
    },
  },
});

export const signInModule = createFrontendModule({
  pluginId: 'app',
  extensions: [appSignInPage, demoApproverAuthApi],
});
