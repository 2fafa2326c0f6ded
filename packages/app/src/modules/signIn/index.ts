export { signInModule } from './signInModule';
export { AppSignInPage, PROXY_PROVIDER_CONFIG_KEY } from './AppSignInPage';
