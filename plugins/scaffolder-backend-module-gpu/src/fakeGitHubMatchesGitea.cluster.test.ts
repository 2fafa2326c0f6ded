// The local forge's helpers of the gpu backend's test utilities, as gitops.cluster.test.ts uses them.
// eslint-disable-next-line @backstage/no-mixed-plugin-imports
import {
  giteaApi,
  localForge,
} from '@gpu-platform/backstage-plugin-gpu-backend/testUtils';
import { setupServer } from 'msw/node';
import { fakeGitHub } from './__testUtils__/fakeGitHub';

jest.setTimeout(120_000);

/**
 * The fake GitHub (the fast layer of the template tests) against a real forge: Gitea, whose REST API has the same
 * shape as GitHub's for the calls both serve. Each call `publish:github:pull-request` makes (octokit-plugin-create-
 * pull-request) that Gitea serves is sent to both, and what the action reads of the answer must be the same: the
 * repository's default branch and push permission, the latest commit's sha and tree, whether a file exists on the
 * base branch (404 when it does not), the new pull request's number, web address and base branch, and the
 * request's state as the backend's GitOps follower reads it (open, then closed and not merged). The git data
 * calls (blobs, trees, commits, refs) and GraphQL have no Gitea counterpart; the fake keeps what they send, which
 * the template tests read back.
 */
describe('the fake GitHub answers what a real forge answers, for the calls the product makes', () => {
  const forge = localForge();
  const gitea = giteaApi(forge);
  const repo = `fake-github-contract-${Date.now().toString(36)}`;
  const owner = forge.user;
  const ON_MAIN = 'deploy/gitops-chat/deployment.yaml';
  const NOT_ON_MAIN = 'deploy/gitops-chat/absent.yaml';
  const BRANCH = 'gpu/contract';
  const github = fakeGitHub({ mainPaths: [ON_MAIN] });
  const mswServer = setupServer(...github.handlers);
  /** The pull request the POST test opened, by its number on each forge. */
  const opened = { fake: 0, real: 0 };

  /** One call to the fake (through msw) and to Gitea: status and body. */
  async function both(method: string, route: string, body?: unknown) {
    const send = async (base: string, authorization: string) => {
      const res = await fetch(`${base}${route}`, {
        method,
        headers: {
          authorization,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = method === 'HEAD' ? '' : await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    return {
      fake: await send('https://api.github.com', 'token ghp_fake'),
      real: await send(`${forge.url}/api/v1`, `token ${forge.token}`),
    };
  }

  beforeAll(async () => {
    mswServer.listen({ onUnhandledRequest: 'bypass' });
    const created = await gitea('POST', '/user/repos', {
      name: repo,
      auto_init: true,
      default_branch: 'main',
      private: true,
    });
    if (created.status !== 201) {
      throw new Error(`Gitea did not create ${repo}: ${created.status}`);
    }
    const file = await gitea(
      'POST',
      `/repos/${owner}/${repo}/contents/${ON_MAIN}`,
      {
        message: 'A service on main',
        content: Buffer.from('kind: Deployment\n').toString('base64'),
      },
    );
    if (file.status !== 201) {
      throw new Error(`Gitea did not add ${ON_MAIN}: ${file.status}`);
    }
  });

  afterAll(async () => {
    mswServer.close();
    await gitea('DELETE', `/repos/${owner}/${repo}`);
  });

  it('GET the repository: its default branch and the push permission', async () => {
    const { fake, real } = await both('GET', `/repos/${owner}/${repo}`);
    const read = (r: typeof fake) => ({
      status: r.status,
      defaultBranch: r.body.default_branch,
      push: r.body.permissions?.push,
    });
    expect(read(fake)).toEqual(read(real));
    expect(read(real)).toEqual({
      status: 200,
      defaultBranch: 'main',
      push: true,
    });
  });

  it('GET the latest commit of main: its sha and its tree', async () => {
    const { fake, real } = await both(
      'GET',
      `/repos/${owner}/${repo}/commits?sha=main&per_page=1`,
    );
    const read = (r: typeof fake) => ({
      status: r.status,
      list: Array.isArray(r.body),
      sha: typeof r.body[0]?.sha,
      tree: typeof r.body[0]?.commit?.tree?.sha,
    });
    expect(read(fake)).toEqual(read(real));
    expect(read(real)).toEqual({
      status: 200,
      list: true,
      sha: 'string',
      tree: 'string',
    });
  });

  it.each([
    ['a file on main', ON_MAIN, 200],
    ['a file that is not', NOT_ON_MAIN, 404],
  ])('HEAD %s (before proposing its removal)', async (_, path, status) => {
    const { fake, real } = await both(
      'HEAD',
      `/repos/${owner}/${repo}/contents/${path}?ref=main`,
    );
    expect([fake.status, real.status]).toEqual([status, status]);
  });

  it('POST a pull request: its number, web address and base branch', async () => {
    // The branch, as each forge gets it: through the git data calls on the fake (as the action makes them), through
    // the contents API on Gitea (which has no git data calls).
    const tree = await fetch(
      `https://api.github.com/repos/${owner}/${repo}/git/trees`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tree: [{ path: 'deploy/x.yaml', mode: '100644', content: 'x: 1\n' }],
        }),
      },
    ).then(r => r.json());
    const commit = await fetch(
      `https://api.github.com/repos/${owner}/${repo}/git/commits`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tree: tree.sha, message: 'x', parents: [] }),
      },
    ).then(r => r.json());
    await fetch(`https://api.github.com/repos/${owner}/${repo}/git/refs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ref: `refs/heads/${BRANCH}`, sha: commit.sha }),
    });
    const branch = await gitea(
      'POST',
      `/repos/${owner}/${repo}/contents/deploy/x.yaml`,
      {
        message: 'x',
        content: Buffer.from('x: 1\n').toString('base64'),
        branch: 'main',
        new_branch: BRANCH,
      },
    );
    expect(branch.status).toBe(201);

    const { fake, real } = await both('POST', `/repos/${owner}/${repo}/pulls`, {
      title: 'Contract',
      body: 'What the fake answers, against a real forge',
      head: BRANCH,
      base: 'main',
    });
    const read = (r: typeof fake) => ({
      status: r.status,
      number: Number.isInteger(r.body.number) && r.body.number > 0,
      // The forge's web page of the request: ends with its number.
      htmlUrl:
        typeof r.body.html_url === 'string' &&
        r.body.html_url.endsWith(
          `/${owner}/${repo}/${r === fake ? 'pull' : 'pulls'}/${r.body.number}`,
        ),
      base: r.body.base?.ref,
    });
    expect(read(fake)).toEqual(read(real));
    expect(read(real)).toEqual({
      status: 201,
      number: true,
      htmlUrl: true,
      base: 'main',
    });
    opened.fake = fake.body.number;
    opened.real = real.body.number;
  });

  it("GET a pull request (the GitOps follower's read): open, then closed unmerged once a reviewer closes it", async () => {
    expect(opened.fake && opened.real).toBeTruthy();
    const read = async () => {
      const { fake: f } = await both(
        'GET',
        `/repos/${owner}/${repo}/pulls/${opened.fake}`,
      );
      const { real: r } = await both(
        'GET',
        `/repos/${owner}/${repo}/pulls/${opened.real}`,
      );
      const fields = (x: typeof f) => ({
        status: x.status,
        state: x.body.state,
        merged: x.body.merged,
      });
      return { fake: fields(f), real: fields(r) };
    };
    const open = await read();
    expect(open.fake).toEqual(open.real);
    expect(open.real).toEqual({ status: 200, state: 'open', merged: false });

    github.closeUnmerged(opened.fake);
    const closing = await gitea(
      'PATCH',
      `/repos/${owner}/${repo}/pulls/${opened.real}`,
      { state: 'closed' },
    );
    expect(closing.status).toBe(201);
    const closed = await read();
    expect(closed.fake).toEqual(closed.real);
    expect(closed.real).toEqual({
      status: 200,
      state: 'closed',
      merged: false,
    });
  });
});
