import {
  AuthRequestOptions,
  BackstageIdentityApi,
  BackstageIdentityResponse,
  DiscoveryApi,
  ProfileInfo,
  ProfileInfoApi,
  SessionApi,
  SessionState,
} from '@backstage/frontend-plugin-api';

/** The observable of session states the SessionApi answers. */
type SessionStates = ReturnType<SessionApi['sessionState$']>;

interface Session {
  profile: ProfileInfo;
  identity: BackstageIdentityResponse;
  /** Refresh before this: a minute before the token expires. */
  renewAt: number;
}

/**
 * Sign-in through a proxy auth provider of the backend that needs no credentials of the browser (the demo's
 * `demoApprover`, like the guest provider): `GET /api/auth/<provider>/refresh` answers the Backstage identity of
 * the user the provider signs in. Remembers in `storage` that the user chose it, so that a reload signs in again
 * (`getBackstageIdentity({ optional: true })` asks the backend only then) and sign-out forgets it.
 */
export class ProxyProviderAuth
  implements ProfileInfoApi, BackstageIdentityApi, SessionApi
{
  private session?: Session;
  private readonly listeners = new Set<(state: SessionState) => void>();
  private readonly storageKey: string;

  constructor(
    private readonly options: {
      discoveryApi: DiscoveryApi;
      provider: string;
      storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
    },
  ) {
    this.storageKey = `app:sign-in:${options.provider}`;
  }

  private get storage() {
    return this.options.storage ?? window.localStorage;
  }

  async signIn(): Promise<void> {
    await this.getSession({});
  }

  async signOut(): Promise<void> {
    this.storage.removeItem(this.storageKey);
    this.session = undefined;
    this.emit(SessionState.SignedOut);
  }

  sessionState$(): SessionStates {
    const listeners = this.listeners;
    const current = () =>
      this.session ? SessionState.SignedIn : SessionState.SignedOut;
    const observable: SessionStates = {
      [Symbol.observable]() {
        return observable;
      },
      subscribe(observerOrNext?: any) {
        const next: (state: SessionState) => void =
          typeof observerOrNext === 'function'
            ? observerOrNext
            : state => observerOrNext?.next?.(state);
        listeners.add(next);
        next(current());
        let closed = false;
        return {
          get closed() {
            return closed;
          },
          unsubscribe() {
            closed = true;
            listeners.delete(next);
          },
        };
      },
    };
    return observable;
  }

  async getBackstageIdentity(
    options: AuthRequestOptions = {},
  ): Promise<BackstageIdentityResponse | undefined> {
    return (await this.getSession(options))?.identity;
  }

  async getProfile(
    options: AuthRequestOptions = {},
  ): Promise<ProfileInfo | undefined> {
    return (await this.getSession(options))?.profile;
  }

  private emit(state: SessionState) {
    for (const listener of this.listeners) listener(state);
  }

  private async getSession(
    options: AuthRequestOptions,
  ): Promise<Session | undefined> {
    if (this.session && Date.now() < this.session.renewAt) {
      return this.session;
    }
    if (options.optional && this.storage.getItem(this.storageKey) !== 'true') {
      return undefined;
    }
    const baseUrl = await this.options.discoveryApi.getBaseUrl('auth');
    const response = await fetch(
      `${baseUrl}/${this.options.provider}/refresh`,
      {
        headers: { 'X-Requested-With': 'XMLHttpRequest' },
        credentials: 'include',
      },
    );
    if (!response.ok) {
      if (options.optional) return undefined;
      throw new Error(
        `Could not sign in through ${this.options.provider}: ${
          response.status
        } ${(await response.text()).slice(0, 300)}`,
      );
    }
    const body = (await response.json()) as {
      profile?: ProfileInfo;
      backstageIdentity: {
        token: string;
        expiresInSeconds?: number;
        identity: BackstageIdentityResponse['identity'];
      };
    };
    const expiresInMs =
      (body.backstageIdentity.expiresInSeconds ?? 3600) * 1000;
    this.session = {
      profile: body.profile ?? {},
      identity: {
        token: body.backstageIdentity.token,
        identity: body.backstageIdentity.identity,
        expiresAt: new Date(Date.now() + expiresInMs),
      },
      renewAt: Date.now() + Math.max(expiresInMs - 60_000, expiresInMs / 2),
    };
    this.storage.setItem(this.storageKey, 'true');
    this.emit(SessionState.SignedIn);
    return this.session;
  }
}
