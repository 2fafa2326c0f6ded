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
    };
  };
}
