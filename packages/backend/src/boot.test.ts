/*
 * Boots the real backend (SQLite in memory, every plugin of src/index.ts) as a child process and talks to it
 * over HTTP. A plugin that fails at start-up makes the backend exit, and this test fail with its log.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BackendProcess,
  freePort,
  startBackendProcess,
} from './__testUtils__/startBackendProcess';

jest.setTimeout(180_000);

describe('backend boot', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpu-boot-'));
  let backend: BackendProcess;
  let BASE_URL: string;

  beforeAll(async () => {
    // No database in the config: SQLite in memory, not the data/ files of app-config.yaml.
    backend = await startBackendProcess({
      port: await freePort(),
      configFile: path.join(dir, 'config.json'),
      config: {},
    });
    BASE_URL = backend.baseUrl;
  });

  afterAll(async () => {
    await backend?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /api/gpu/health without credentials', async () => {
    const res = await fetch(`${BASE_URL}/api/gpu/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('serves the catalog to a guest user and refuses anonymous callers', async () => {
    const refresh = await fetch(
      `${BASE_URL}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    expect(refresh.status).toBe(200);
    const { backstageIdentity } = await refresh.json();
    expect(backstageIdentity.token).toEqual(expect.any(String));

    const anonymous = await fetch(`${BASE_URL}/api/catalog/entities?limit=1`);
    expect(anonymous.status).toBe(401);

    const signedIn = await fetch(`${BASE_URL}/api/catalog/entities?limit=1`, {
      headers: { authorization: `Bearer ${backstageIdentity.token}` },
    });
    expect(signedIn.status).toBe(200);
    expect(Array.isArray(await signedIn.json())).toBe(true);
  });

  it('serves the GPU platform to a signed-in user', async () => {
    const refresh = await fetch(
      `${BASE_URL}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    const { backstageIdentity } = await refresh.json();
    const res = await fetch(`${BASE_URL}/api/gpu/platform`, {
      headers: { authorization: `Bearer ${backstageIdentity.token}` },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.platform.pools.length).toBeGreaterThan(0);
  });

  it("exempts loopback from the gpu API's rate limit, as app-config.yaml says: 400 requests in a minute from 127.0.0.1 all pass", async () => {
    // 127.0.0.1, not localhost: on the backend's dual-stack socket IPv4 loopback is ::ffff:127.0.0.1, which
    // Backstage's default allow list misses (it limited the 301st request on).
    const loopback = BASE_URL.replace('//localhost:', '//127.0.0.1:');
    const refresh = await fetch(
      `${loopback}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    const { backstageIdentity } = await refresh.json();
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${loopback}/api/gpu/platform`, {
            headers: { authorization: `Bearer ${backstageIdentity.token}` },
          }).then(async res => {
            await res.arrayBuffer();
            return res.status;
          }),
        ),
      );
      for (const status of answers) {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 400 });
  });

  it('serves the Kubernetes plugin with no cluster by default (services are dry-run)', async () => {
    const refresh = await fetch(
      `${BASE_URL}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    const { backstageIdentity } = await refresh.json();
    const headers = { authorization: `Bearer ${backstageIdentity.token}` };
    const clusters = await fetch(`${BASE_URL}/api/kubernetes/clusters`, {
      headers,
    });
    expect(clusters.status).toBe(200);
    expect(await clusters.json()).toEqual({ items: [] });

    const gpu = await fetch(`${BASE_URL}/api/gpu/platform`, { headers });
    expect((await gpu.json()).clusters).toEqual([]);
  });

  it('serves the gpu OpenAPI description, and registers it in the catalog as an API for the API docs plugin', async () => {
    const refresh = await fetch(
      `${BASE_URL}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    const { backstageIdentity } = await refresh.json();
    const headers = { authorization: `Bearer ${backstageIdentity.token}` };

    const served = await fetch(`${BASE_URL}/api/gpu/openapi.json`, {
      headers,
    });
    expect(served.status).toBe(200);
    const spec = await served.json();
    expect(spec.info.title).toBe('gpu');
    expect(spec.paths['/api/gpu/services'].get.operationId).toBe(
      'listServices',
    );
    expect((await fetch(`${BASE_URL}/api/gpu/openapi.json`)).status).toBe(401);

    // examples/apis.yaml: the definition is the spec file, read by the $text placeholder of a local file.
    const specFile = readFileSync(
      path.resolve(
        __dirname,
        '../../../plugins/gpu-backend/src/schema/openapi.yaml',
      ),
      'utf8',
    );
    let api: any;
    for (let i = 0; i < 120 && !api; i++) {
      const res = await fetch(
        `${BASE_URL}/api/catalog/entities/by-name/api/default/gpu`,
        { headers },
      );
      if (res.status === 200) api = await res.json();
      else await new Promise(r => setTimeout(r, 500));
    }
    expect(api).toMatchObject({
      kind: 'API',
      spec: {
        type: 'openapi',
        owner: 'group:default/platform-team',
        definition: specFile,
      },
    });
    expect(api.relations).toEqual(
      expect.arrayContaining([
        { type: 'ownedBy', targetRef: 'group:default/platform-team' },
        { type: 'apiProvidedBy', targetRef: 'component:default/gpu-portal' },
      ]),
    );
  });

  it('loads every template of templates/ into the catalog and offers the GitOps publishers without a Git token', async () => {
    const refresh = await fetch(
      `${BASE_URL}/api/auth/guest/refresh?env=development`,
      { headers: { 'x-requested-with': 'XMLHttpRequest' } },
    );
    const { backstageIdentity } = await refresh.json();
    const headers = { authorization: `Bearer ${backstageIdentity.token}` };
    const templatesDir = path.resolve(__dirname, '../../../templates');
    const expected = readdirSync(templatesDir)
      .filter(name =>
        existsSync(path.join(templatesDir, name, 'template.yaml')),
      )
      .sort();
    expect(expected).toContain('gpu-platform-gitops');

    let names: string[] = [];
    for (let i = 0; i < 120 && names.length < expected.length; i++) {
      const res = await fetch(
        `${BASE_URL}/api/catalog/entities?filter=kind=template&fields=metadata.name`,
        { headers },
      );
      names = (await res.json())
        .map((e: { metadata: { name: string } }) => e.metadata.name)
        .sort();
      if (names.length < expected.length) {
        await new Promise(r => setTimeout(r, 500));
      }
    }
    expect(names).toEqual(expected);

    const actions = await fetch(`${BASE_URL}/api/scaffolder/v2/actions`, {
      headers,
    });
    expect(actions.status).toBe(200);
    const ids = (await actions.json()).map((a: { id: string }) => a.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'gpu:platform:render',
        'gpu:gitea:pull-request',
        'publish:github:pull-request',
        'publish:gitlab:merge-request',
      ]),
    );
  });
});
