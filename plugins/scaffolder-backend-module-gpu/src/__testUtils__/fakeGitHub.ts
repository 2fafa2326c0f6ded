import { http, HttpResponse } from 'msw';

const API = 'https://api.github.com';

interface TreeEntry {
  path: string;
  mode: string;
  sha?: string | null;
  content?: string;
}

/** A pull request as GitHub received it, with the files of its head commit (path to UTF-8 content). */
export interface FakePullRequest {
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  files: Record<string, string>;
  /** Paths its head commit removes (tree entries without a blob). */
  deleted: string[];
}

/**
 * msw handlers for the GitHub REST and GraphQL calls `publish:github:pull-request` makes (through
 * octokit-plugin-create-pull-request): the repository, its latest commit on `main`, blobs, trees, commits, the branch
 * ref and the pull request, and its state as the gpu backend's GitOps follower reads it (open until
 * `closeUnmerged`). Blobs, trees, commits and refs are kept, so each pull request records the files its head
 * branch holds, decoded as GitHub would store them, and the paths it removes. `requests` lists every call (method and
 * path). The files on `main` are `mainPaths` (a path elsewhere is answered 404, as GitHub does), or every path when
 * omitted. fakeGitHubMatchesGitea.cluster.test.ts checks these answers against a real forge's.
 */
export function fakeGitHub(options: { mainPaths?: string[] } = {}) {
  const blobs = new Map<string, string>();
  const trees = new Map<string, TreeEntry[]>();
  const commits = new Map<string, string>();
  const refs = new Map<string, string>();
  const pullRequests: FakePullRequest[] = [];
  const requests: { method: string; path: string }[] = [];
  let counter = 0;
  const nextSha = (kind: string) => `${kind}-${++counter}`;
  const record = (request: Request) => {
    requests.push({
      method: request.method,
      path: new URL(request.url).pathname,
    });
  };

  const filesOf = (treeSha: string): Record<string, string> =>
    Object.fromEntries(
      (trees.get(treeSha) ?? [])
        .filter(entry => entry.sha !== null)
        .map(entry => [
          entry.path,
          entry.content ?? blobs.get(entry.sha ?? '') ?? '',
        ]),
    );

  const handlers = [
    http.get(`${API}/repos/:owner/:repo`, ({ request, params }) => {
      record(request);
      return HttpResponse.json({
        name: params.repo,
        full_name: `${params.owner}/${params.repo}`,
        default_branch: 'main',
        permissions: { admin: false, push: true, pull: true },
      });
    }),
    http.get(`${API}/repos/:owner/:repo/commits`, ({ request }) => {
      record(request);
      return HttpResponse.json([
        { sha: 'main-commit', commit: { tree: { sha: 'main-tree' } } },
      ]);
    }),
    http.post(`${API}/repos/:owner/:repo/git/blobs`, async ({ request }) => {
      record(request);
      const body = (await request.json()) as {
        content: string;
        encoding?: string;
      };
      const sha = nextSha('blob');
      blobs.set(
        sha,
        Buffer.from(
          body.content,
          body.encoding === 'base64' ? 'base64' : 'utf8',
        ).toString('utf8'),
      );
      return HttpResponse.json({ sha }, { status: 201 });
    }),
    // The plugin checks with HEAD before deleting a file: a removal is proposed only for a path on main.
    http.head(`${API}/repos/:owner/:repo/contents/*`, ({ request, params }) => {
      record(request);
      const path = (params[0] as string) ?? '';
      const onMain =
        options.mainPaths === undefined ||
        options.mainPaths.includes(decodeURIComponent(path));
      return new HttpResponse(null, { status: onMain ? 200 : 404 });
    }),
    http.post(`${API}/repos/:owner/:repo/git/trees`, async ({ request }) => {
      record(request);
      const body = (await request.json()) as { tree: TreeEntry[] };
      const sha = nextSha('tree');
      trees.set(sha, body.tree);
      return HttpResponse.json({ sha }, { status: 201 });
    }),
    http.post(`${API}/repos/:owner/:repo/git/commits`, async ({ request }) => {
      record(request);
      const body = (await request.json()) as { tree: string };
      const sha = nextSha('commit');
      commits.set(sha, body.tree);
      return HttpResponse.json({ sha }, { status: 201 });
    }),
    http.post(`${API}/graphql`, ({ request }) => {
      record(request);
      // No branch of that name yet, so no open pull request on it.
      return HttpResponse.json({ data: { repository: { ref: null } } });
    }),
    http.post(`${API}/repos/:owner/:repo/git/refs`, async ({ request }) => {
      record(request);
      const body = (await request.json()) as { ref: string; sha: string };
      refs.set(body.ref.replace(/^refs\/heads\//, ''), body.sha);
      return HttpResponse.json({ ref: body.ref }, { status: 201 });
    }),
    http.post(
      `${API}/repos/:owner/:repo/pulls`,
      async ({ request, params }) => {
        record(request);
        const body = (await request.json()) as {
          title: string;
          body: string;
          head: string;
          base: string;
        };
        const branch = body.head.split(':').pop()!;
        const commit = refs.get(branch);
        if (!commit) {
          return HttpResponse.json(
            { message: `No branch ${branch}` },
            { status: 422 },
          );
        }
        const pullRequest: FakePullRequest = {
          owner: String(params.owner),
          repo: String(params.repo),
          number: pullRequests.length + 1,
          title: body.title,
          body: body.body,
          head: body.head,
          base: body.base,
          files: filesOf(commits.get(commit)!),
          deleted: (trees.get(commits.get(commit)!) ?? [])
            .filter(entry => entry.sha === null)
            .map(entry => entry.path),
        };
        pullRequests.push(pullRequest);
        return HttpResponse.json(
          {
            number: pullRequest.number,
            html_url: `https://github.com/${pullRequest.owner}/${pullRequest.repo}/pull/${pullRequest.number}`,
            base: { ref: body.base },
          },
          { status: 201 },
        );
      },
    ),
  ];

  // The state the backend's GitOps follower reads (GET /repos/:owner/:repo/pulls/:number): open until closeUnmerged.
  const closed = new Set<number>();
  handlers.push(
    http.get(
      `${API}/repos/:owner/:repo/pulls/:number`,
      ({ request, params }) => {
        record(request);
        const pullRequest = pullRequests.find(
          p =>
            p.owner === params.owner &&
            p.repo === params.repo &&
            p.number === Number(params.number),
        );
        if (!pullRequest) {
          return HttpResponse.json({ message: 'Not Found' }, { status: 404 });
        }
        return HttpResponse.json({
          number: pullRequest.number,
          state: closed.has(pullRequest.number) ? 'closed' : 'open',
          merged: false,
        });
      },
    ),
  );

  return {
    handlers,
    pullRequests,
    requests,
    /** A reviewer closes the pull request without merging it. */
    closeUnmerged(number: number) {
      closed.add(number);
    },
  };
}
