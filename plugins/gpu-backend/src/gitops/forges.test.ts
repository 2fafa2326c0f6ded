import { ConfigReader } from '@backstage/config';
import { Forges } from './forges';

/** A forge's HTTP API as far as these calls go: answers by method and path, records every call. */
function forgeApi(answers: Record<string, unknown>) {
  const calls: Array<{
    method: string;
    url: string;
    headers: any;
    body?: any;
  }> = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    calls.push({
      method,
      url,
      headers: init.headers,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    const key = `${method} ${new URL(url).pathname}`;
    if (!(key in answers)) {
      return new Response('{"message":"not found"}', { status: 404 });
    }
    return new Response(JSON.stringify(answers[key]), { status: 200 });
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

function forgesWith(fetchImpl: typeof fetch) {
  return Forges.fromConfig(
    new ConfigReader({
      integrations: {
        gitea: [
          {
            host: 'git.example.com:3000',
            baseUrl: 'http://git.example.com:3000/forge',
            username: 'bot',
            password: 'secret',
          },
        ],
        github: [{ host: 'github.com', token: 'ghp_x' }],
        gitlab: [{ host: 'gitlab.com', token: 'glpat' }],
      },
    }),
    { fetch: fetchImpl },
  );
}

describe('Forges', () => {
  it('reads a request of each forge from its web address', () => {
    const forges = forgesWith(forgeApi({}).fetchImpl);
    expect(
      forges.resolve('http://git.example.com:3000/forge/ops/gitops/pulls/7')
        .ref,
    ).toEqual({
      url: 'http://git.example.com:3000/forge/ops/gitops/pulls/7',
      number: 7,
    });
    expect(
      forges.resolve('https://github.com/acme/deploy/pull/42').ref.number,
    ).toBe(42);
    expect(
      forges.resolve(
        'https://gitlab.com/acme/platform/deploy/-/merge_requests/3',
      ).ref.number,
    ).toBe(3);
  });

  it.each([
    ['a host with no integration', 'https://git.other.org/a/b/pulls/1'],
    ['not an address', 'pull request 7'],
    ['an issue, not a pull request', 'https://github.com/acme/deploy/issues/4'],
    [
      'Gitea address without a number',
      'http://git.example.com:3000/forge/ops/gitops/pulls/',
    ],
    ['GitLab address of an issue', 'https://gitlab.com/acme/deploy/-/issues/3'],
  ])('refuses %s with an InputError', (_, url) => {
    const forges = forgesWith(forgeApi({}).fetchImpl);
    expect(() => forges.resolve(url)).toThrow(
      expect.objectContaining({ name: 'InputError' }),
    );
  });

  it('asks Gitea with the integration credentials and tells merged from closed', async () => {
    const api = forgeApi({
      'GET /forge/api/v1/repos/ops/gitops/pulls/7': {
        state: 'closed',
        merged: true,
      },
      'GET /forge/api/v1/repos/ops/gitops/pulls/8': {
        state: 'closed',
        merged: false,
      },
      'GET /forge/api/v1/repos/ops/gitops/pulls/9': {
        state: 'open',
        merged: false,
      },
    });
    const forges = forgesWith(api.fetchImpl);
    const stateOf = (n: number) => {
      const { client, ref } = forges.resolve(
        `http://git.example.com:3000/forge/ops/gitops/pulls/${n}`,
      );
      return client.state(ref);
    };
    expect(await stateOf(7)).toBe('merged');
    expect(await stateOf(8)).toBe('closed');
    expect(await stateOf(9)).toBe('open');
    expect(api.calls[0].headers.authorization).toBe(
      `Basic ${Buffer.from('bot:secret').toString('base64')}`,
    );
  });

  it('closes an open GitHub request after commenting why; a merged one stays merged', async () => {
    const api = forgeApi({
      'GET /repos/acme/deploy/pulls/42': { state: 'open', merged: false },
      'POST /repos/acme/deploy/issues/42/comments': { id: 1 },
      'PATCH /repos/acme/deploy/pulls/42': { state: 'closed', merged: false },
      'GET /repos/acme/deploy/pulls/43': { state: 'closed', merged: true },
    });
    const forges = forgesWith(api.fetchImpl);
    const open = forges.resolve('https://github.com/acme/deploy/pull/42');
    expect(await open.client.close(open.ref, 'Not merged in time')).toBe(
      'closed',
    );
    expect(api.calls.map(c => `${c.method} ${c.url}`)).toEqual([
      'GET https://api.github.com/repos/acme/deploy/pulls/42',
      'POST https://api.github.com/repos/acme/deploy/issues/42/comments',
      'PATCH https://api.github.com/repos/acme/deploy/pulls/42',
    ]);
    expect(api.calls[1].body).toEqual({ body: 'Not merged in time' });
    expect(api.calls[2].body).toEqual({ state: 'closed' });
    expect(api.calls[0].headers.authorization).toBe('Bearer ghp_x');

    const merged = forges.resolve('https://github.com/acme/deploy/pull/43');
    expect(await merged.client.close(merged.ref, 'late')).toBe('merged');
    expect(api.calls).toHaveLength(4);
  });

  it('reads and closes a GitLab merge request of a nested group', async () => {
    const project = encodeURIComponent('acme/platform/deploy');
    const api = forgeApi({
      [`GET /api/v4/projects/${project}/merge_requests/3`]: { state: 'opened' },
      [`POST /api/v4/projects/${project}/merge_requests/3/notes`]: { id: 1 },
      [`PUT /api/v4/projects/${project}/merge_requests/3`]: { state: 'closed' },
    });
    const forges = forgesWith(api.fetchImpl);
    const { client, ref } = forges.resolve(
      'https://gitlab.com/acme/platform/deploy/-/merge_requests/3',
    );
    expect(await client.state(ref)).toBe('open');
    expect(await client.close(ref, 'why')).toBe('closed');
    expect(api.calls.map(c => c.method)).toEqual(['GET', 'GET', 'POST', 'PUT']);
    expect(api.calls[0].headers['private-token']).toBe('glpat');
    expect(api.calls[3].body).toEqual({ state_event: 'close' });
  });

  it('says which call a forge refused, without the credentials', async () => {
    const forges = forgesWith(forgeApi({}).fetchImpl);
    const { client, ref } = forges.resolve(
      'https://github.com/acme/deploy/pull/404',
    );
    const error = await client.state(ref).catch(e => e);
    expect(error).toMatchObject({
      name: 'ForgeRequestError',
      status: 404,
      message: expect.stringContaining(
        'github.com answered 404 to GET /repos/acme/deploy/pulls/404',
      ),
    });
    expect(error.message).not.toContain('ghp_x');
  });
});
