/*
 * Boots the real backend (SQLite in memory, every plugin of src/index.ts) as a child process and talks to it
 * over HTTP. A plugin that fails at start-up makes the backend exit, and this test fail with its log.
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const PORT = 7099;
const BASE_URL = `http://localhost:${PORT}`;
const STARTUP_TIMEOUT_MS = 150_000;

jest.setTimeout(STARTUP_TIMEOUT_MS + 30_000);

describe('backend boot', () => {
  let backend: ChildProcess;
  let log = '';
  let exitCode: number | null | undefined;

  beforeAll(async () => {
    // The CLI's TypeScript loader without its file watcher, so a failed start-up ends the process.
    const transform = require.resolve('@backstage/cli/config/nodeTransform.cjs');
    backend = spawn(process.execPath, ['--require', transform, 'src/index.ts'], {
      cwd: path.resolve(__dirname, '..'),
      env: {
        ...process.env,
        NODE_ENV: 'development',
        APP_CONFIG_backend_listen_port: String(PORT),
        APP_CONFIG_backend_baseUrl: BASE_URL,
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    backend.stdout!.on('data', chunk => (log += chunk));
    backend.stderr!.on('data', chunk => (log += chunk));
    backend.on('exit', code => (exitCode = code));

    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      if (exitCode !== undefined) {
        throw new Error(`backend exited with ${exitCode} during start-up:\n${log}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`backend not ready after ${STARTUP_TIMEOUT_MS} ms:\n${log}`);
      }
      const ready = await fetch(`${BASE_URL}/.backstage/health/v1/readiness`)
        .then(res => res.ok)
        .catch(() => false);
      if (ready) break;
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  });

  afterAll(() => {
    if (backend?.pid && exitCode === undefined) {
      process.kill(-backend.pid, 'SIGTERM');
    }
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
});
