import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';

/** What a forge says of a pull (merge) request. */
export type ForgePullRequestState = 'open' | 'merged' | 'closed';

/** A pull (merge) request as the backend records it: its web address and its number on the forge. */
export interface PullRequestRef {
  url: string;
  number: number;
}

/**
 * The calls the backend makes to a forge about the pull (merge) request of a GitOps service: read where it stands,
 * and close it with a comment when its reservation expires. One implementation per forge API; {@link Forges} picks
 * the one of a request's host.
 */
export interface ForgeClient {
  /** The host it serves (as in `integrations.<forge>[].host`). */
  readonly host: string;
  /** The request of a web address of this host; an InputError when the address is not one of its requests. */
  parse(url: string): PullRequestRef;
  /** Where the request stands now. */
  state(ref: PullRequestRef): Promise<ForgePullRequestState>;
  /**
   * Closes the request (without merging) after commenting why; what it is after (`merged` when someone merged it
   * first: then it stays merged).
   */
  close(ref: PullRequestRef, comment: string): Promise<ForgePullRequestState>;
}

type Fetch = typeof fetch;

/** A forge's answer that is not a success: the request and the status, never the credentials. */
export class ForgeRequestError extends Error {
  constructor(
    readonly host: string,
    readonly method: string,
    readonly path: string,
    readonly status: number,
    detail: string,
  ) {
    super(
      `${host} answered ${status} to ${method} ${path}${
        detail ? `: ${detail.slice(0, 200)}` : ''
      }`,
    );
    this.name = 'ForgeRequestError';
  }
}

async function call<T>(
  fetchImpl: Fetch,
  host: string,
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<T> {
  const res = await fetchImpl(`${base}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) {
    throw new ForgeRequestError(host, method, path, res.status, text);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

function pathSegments(url: string, host: string, webBase: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InputError(`Not a pull request address: ${url}`);
  }
  const base = new URL(webBase);
  if (parsed.host !== host && parsed.host !== base.host) {
    throw new InputError(`${url} is not on ${host}`);
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const path = parsed.pathname.startsWith(`${basePath}/`)
    ? parsed.pathname.slice(basePath.length)
    : parsed.pathname;
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

function requestNumber(value: string | undefined, url: string): number {
  const number = Number(value);
  if (
    !value ||
    !/^[1-9][0-9]{0,9}$/.test(value) ||
    !Number.isSafeInteger(number)
  ) {
    throw new InputError(`No pull request number in ${url}`);
  }
  return number;
}

/** GitHub's and Gitea's pull request, in the fields both answer alike. */
interface PullJson {
  state: 'open' | 'closed';
  merged: boolean;
}

/**
 * Gitea and GitHub: `<web>/<owner>/<repo>/pulls/<n>` (Gitea) or `/pull/<n>` (GitHub), read and closed through
 * `/repos/<owner>/<repo>/pulls/<n>` of their REST APIs (the same shape on both), commented through
 * `/repos/<owner>/<repo>/issues/<n>/comments`.
 */
export class PullRequestForge implements ForgeClient {
  constructor(
    private readonly options: {
      kind: 'gitea' | 'github';
      host: string;
      /** Web address the requests' URLs start with. */
      webBaseUrl: string;
      /** REST API root: `<baseUrl>/api/v1` (Gitea), `https://api.github.com` (GitHub). */
      apiBaseUrl: string;
      /** The Authorization header's value. */
      authorization?: string;
      fetch?: Fetch;
    },
  ) {}

  get host(): string {
    return this.options.host;
  }

  parse(url: string): PullRequestRef {
    const [owner, repo, pulls, number, ...rest] = pathSegments(
      url,
      this.options.host,
      this.options.webBaseUrl,
    );
    const word = this.options.kind === 'gitea' ? 'pulls' : 'pull';
    if (!owner || !repo || pulls !== word || rest.length > 0) {
      throw new InputError(
        `Not a pull request address of ${this.options.host}: ${url} (expected <owner>/<repo>/${word}/<number>)`,
      );
    }
    return { url, number: requestNumber(number, url) };
  }

  async state(ref: PullRequestRef): Promise<ForgePullRequestState> {
    return stateOf(await this.request<PullJson>('GET', this.pullPath(ref)));
  }

  async close(
    ref: PullRequestRef,
    comment: string,
  ): Promise<ForgePullRequestState> {
    const current = await this.state(ref);
    if (current !== 'open') {
      return current;
    }
    const { owner, repo } = this.repoOf(ref);
    await this.request(
      'POST',
      `/repos/${owner}/${repo}/issues/${ref.number}/comments`,
      { body: comment },
    );
    return stateOf(
      await this.request<PullJson>('PATCH', this.pullPath(ref), {
        state: 'closed',
      }),
    );
  }

  private repoOf(ref: PullRequestRef) {
    const [owner, repo] = pathSegments(
      ref.url,
      this.options.host,
      this.options.webBaseUrl,
    );
    return {
      owner: encodeURIComponent(owner),
      repo: encodeURIComponent(repo),
    };
  }

  private pullPath(ref: PullRequestRef): string {
    const { owner, repo } = this.repoOf(ref);
    return `/repos/${owner}/${repo}/pulls/${ref.number}`;
  }

  private request<T>(method: string, path: string, body?: unknown) {
    return call<T>(
      this.options.fetch ?? fetch,
      this.options.host,
      this.options.apiBaseUrl,
      method,
      path,
      this.options.authorization
        ? { authorization: this.options.authorization }
        : {},
      body,
    );
  }
}

function stateOf(pull: PullJson): ForgePullRequestState {
  if (pull.merged) return 'merged';
  return pull.state === 'open' ? 'open' : 'closed';
}

/** GitLab's merge request, in the field read. */
interface MergeRequestJson {
  state: 'opened' | 'closed' | 'locked' | 'merged';
}

/**
 * GitLab: `<web>/<group>/<project>/-/merge_requests/<iid>`, read and closed through
 * `/projects/<path>/merge_requests/<iid>` of its REST API, commented through `.../notes`.
 */
export class MergeRequestForge implements ForgeClient {
  constructor(
    private readonly options: {
      host: string;
      webBaseUrl: string;
      /** `<baseUrl>/api/v4`. */
      apiBaseUrl: string;
      token?: string;
      fetch?: Fetch;
    },
  ) {}

  get host(): string {
    return this.options.host;
  }

  parse(url: string): PullRequestRef {
    this.projectOf(url);
    const segments = pathSegments(
      url,
      this.options.host,
      this.options.webBaseUrl,
    );
    return { url, number: requestNumber(segments[segments.length - 1], url) };
  }

  async state(ref: PullRequestRef): Promise<ForgePullRequestState> {
    return gitlabState(
      await this.request<MergeRequestJson>('GET', this.mergeRequestPath(ref)),
    );
  }

  async close(
    ref: PullRequestRef,
    comment: string,
  ): Promise<ForgePullRequestState> {
    const current = await this.state(ref);
    if (current !== 'open') {
      return current;
    }
    await this.request('POST', `${this.mergeRequestPath(ref)}/notes`, {
      body: comment,
    });
    return gitlabState(
      await this.request<MergeRequestJson>('PUT', this.mergeRequestPath(ref), {
        state_event: 'close',
      }),
    );
  }

  private projectOf(url: string): string {
    const segments = pathSegments(
      url,
      this.options.host,
      this.options.webBaseUrl,
    );
    const dash = segments.indexOf('-');
    if (
      dash < 2 ||
      segments[dash + 1] !== 'merge_requests' ||
      segments.length !== dash + 3
    ) {
      throw new InputError(
        `Not a merge request address of ${this.options.host}: ${url} (expected <group>/<project>/-/merge_requests/<iid>)`,
      );
    }
    return segments.slice(0, dash).join('/');
  }

  private mergeRequestPath(ref: PullRequestRef): string {
    return `/projects/${encodeURIComponent(
      this.projectOf(ref.url),
    )}/merge_requests/${ref.number}`;
  }

  private request<T>(method: string, path: string, body?: unknown) {
    return call<T>(
      this.options.fetch ?? fetch,
      this.options.host,
      this.options.apiBaseUrl,
      method,
      path,
      this.options.token ? { 'private-token': this.options.token } : {},
      body,
    );
  }
}

function gitlabState(mr: MergeRequestJson): ForgePullRequestState {
  if (mr.state === 'merged') return 'merged';
  return mr.state === 'opened' ? 'open' : 'closed';
}

/** Basic with the user and password (a token) of the integration, else the token alone; none without a password. */
function giteaAuthorization(
  username: string | undefined,
  password: string | undefined,
): string | undefined {
  if (!password) return undefined;
  if (!username) return `token ${password}`;
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** The forges of `integrations` the backend follows pull requests on, by host. */
export class Forges {
  /**
   * One client per entry of `integrations.gitea`, `integrations.github` (static `token`) and `integrations.gitlab`,
   * with the same credentials the scaffolder's publish actions use.
   */
  static fromConfig(config: Config, options: { fetch?: Fetch } = {}): Forges {
    const clients: ForgeClient[] = [];
    for (const entry of config.getOptionalConfigArray('integrations.gitea') ??
      []) {
      const host = entry.getString('host');
      const baseUrl = (
        entry.getOptionalString('baseUrl') ?? `https://${host}`
      ).replace(/\/+$/, '');
      const username = entry.getOptionalString('username');
      const password = entry.getOptionalString('password');
      clients.push(
        new PullRequestForge({
          kind: 'gitea',
          host,
          webBaseUrl: baseUrl,
          apiBaseUrl: `${baseUrl}/api/v1`,
          authorization: giteaAuthorization(username, password),
          fetch: options.fetch,
        }),
      );
    }
    for (const entry of config.getOptionalConfigArray('integrations.github') ??
      []) {
      const host = entry.getString('host');
      const token = entry.getOptionalString('token');
      clients.push(
        new PullRequestForge({
          kind: 'github',
          host,
          webBaseUrl: `https://${host}`,
          apiBaseUrl: (
            entry.getOptionalString('apiBaseUrl') ??
            (host === 'github.com'
              ? 'https://api.github.com'
              : `https://${host}/api/v3`)
          ).replace(/\/+$/, ''),
          authorization: token ? `Bearer ${token}` : undefined,
          fetch: options.fetch,
        }),
      );
    }
    for (const entry of config.getOptionalConfigArray('integrations.gitlab') ??
      []) {
      const host = entry.getString('host');
      const baseUrl = (
        entry.getOptionalString('baseUrl') ?? `https://${host}`
      ).replace(/\/+$/, '');
      clients.push(
        new MergeRequestForge({
          host,
          webBaseUrl: baseUrl,
          apiBaseUrl: (
            entry.getOptionalString('apiBaseUrl') ?? `${baseUrl}/api/v4`
          ).replace(/\/+$/, ''),
          token: entry.getOptionalString('token'),
          fetch: options.fetch,
        }),
      );
    }
    return new Forges(clients);
  }

  constructor(private readonly clients: ForgeClient[]) {}

  /** The client of the request's host and the request; an InputError when no integration serves that host. */
  resolve(url: string): { client: ForgeClient; ref: PullRequestRef } {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      throw new InputError(`Not a pull request address: ${url}`);
    }
    const client = this.clients.find(c => c.host === host);
    if (!client) {
      throw new InputError(
        `No integrations entry (gitea, github or gitlab) for ${host}: the backend could not follow the pull request ${url}`,
      );
    }
    return { client, ref: client.parse(url) };
  }
}
