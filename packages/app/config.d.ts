export interface Config {
  app?: {
    /** How users sign in to the app (src/modules/signIn). */
    signIn?: {
      /**
       * The auth provider of an authenticating proxy Backstage is deployed behind, e.g. `oauth2Proxy` (oauth2-proxy,
       * `@backstage/plugin-auth-backend-module-oauth2-proxy-provider`, configured under `auth.providers`). When set,
       * the sign-in page signs in as the user the proxy's headers name, without a page of its own; when unset (the
       * default), it offers the guest sign-in.
       *
       * @visibility frontend
       */
      proxyProvider?: string;
      /**
       * Offer the demo's second user, Alice of the platform team, beside the guest (the backend's
       * `auth.providers.demoApprover`, development only): she approves what the guest requests, which the guest,
       * having made the requests, may not (four eyes).
       *
       * @visibility frontend
       */
      demoApprover?: boolean;
    };
  };
}
