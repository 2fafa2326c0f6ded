import {
  APIRequestContext,
  Browser,
  BrowserContext,
  expect,
  Page,
  test,
} from '@playwright/test';

/**
 * Who a browser context is. The e2e backend runs as behind oauth2-proxy (app-config.e2e.yaml): the proxy would add
 * these headers to every request of a signed-in user, so a context that sends them (Playwright `extraHTTPHeaders`)
 * is that user, in the page and in its `request` alike. Users are the catalog's (examples/org.yaml).
 */
export const USERS = {
  /** Member of ml-platform and platform-team: what the suite signs in as unless a test says otherwise. */
  guest: { name: 'guest', displayName: 'Guest' },
  /** Platform team: approves requests outside policy. */
  alice: { name: 'alice', displayName: 'Alice (platform)' },
  /** ml-platform: requests services for his team; not an approver. */
  bob: { name: 'bob', displayName: 'Bob (ML)' },
} as const;

export type UserName = keyof typeof USERS;

/** The headers oauth2-proxy forwards for the user (the provider's resolver reads X-Forwarded-User). */
export function identityHeaders(user: UserName): Record<string, string> {
  return {
    'X-Forwarded-User': USERS[user].name,
    'X-Forwarded-Email': `${USERS[user].name}@example.com`,
  };
}

/** A browser context (own cookies and storage) signed in as `user`, on the project's base URL. */
export async function newUserContext(
  browser: Browser,
  user: UserName,
): Promise<BrowserContext> {
  return browser.newContext({
    baseURL: test.info().project.use.baseURL,
    extraHTTPHeaders: identityHeaders(user),
  });
}

/**
 * The Backstage token of the context's user, from the oauth2Proxy provider's refresh (what the app's sign-in page
 * calls). Until the catalog has read examples/org.yaml the user cannot be signed in, so this waits for that.
 */
export async function backstageToken(
  request: APIRequestContext,
): Promise<string> {
  let token: string | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get('/api/auth/oauth2Proxy/refresh', {
          headers: { 'X-Requested-With': 'XMLHttpRequest' },
        });
        if (!res.ok()) return `${res.status()} ${await res.text()}`;
        token = (await res.json()).backstageIdentity.token;
        return 'signed in';
      },
      { timeout: 60_000, intervals: [500, 1000, 2000] },
    )
    .toBe('signed in');
  return token!;
}

/** Calls the backend as the context's user; fails the test on an error status unless `expectStatus` says otherwise. */
export async function api(
  request: APIRequestContext,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  options: { expectStatus?: number } = {},
) {
  const res = await request.fetch(path, {
    method,
    headers: { Authorization: `Bearer ${await backstageToken(request)}` },
    data: body,
  });
  const text = await res.text();
  if (options.expectStatus !== undefined) {
    expect(res.status(), `${method} ${path}: ${text}`).toBe(
      options.expectStatus,
    );
  } else {
    expect(res.ok(), `${method} ${path}: ${res.status()} ${text}`).toBeTruthy();
  }
  return text ? JSON.parse(text) : undefined;
}

/**
 * Opens the app: the sign-in page signs the context's user in through the proxy by itself (no page to click
 * through). Waits for the catalog to know the user first, then for the sidebar.
 */
export async function signIn(page: Page) {
  await backstageToken(page.request);
  await page.goto('/');
  await expect(
    page
      .getByRole('navigation', { name: 'sidebar nav' })
      .getByRole('link', { name: 'Catalog', exact: true }),
  ).toBeVisible();
}
