import { createBackend } from '@backstage/backend-defaults';
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { createServer } from 'node:net';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

/** `backend.rateLimit` limiting the gpu plugin to `limit` requests a minute per client address, loopback included. */
function gpuRateLimit(limit: number) {
  return {
    global: false,
    plugin: {
      gpu: {
        window: { minutes: 1 },
        incomingRequestLimit: limit,
        // app-config.yaml exempts loopback; these tests' clients are on loopback.
        ipAllowList: [],
      },
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? ok(address.port)
          : fail(new Error('no port')),
      );
    });
  });
}

/** Stops the backends a test started. */
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map(stop => stop()));
});

/**
 * The gpu plugin in a backend of Backstage's defaults (the test backend's HTTP router ignores `backend.trustProxy`),
 * limited to 3 requests a minute per client address; `trustProxy` as given.
 */
async function startBehindProxy(trustProxy: unknown) {
  const port = await freePort();
  const backend = createBackend();
  backend.add(gpuPlugin);
  backend.add(databaseClosedOnShutdown);
  backend.add(mockServices.rootLogger.factory());
  backend.add(
    mockServices.rootConfig.factory({
      data: {
        gpu: demoPlatformConfig,
        backend: {
          baseUrl: `http://localhost:${port}`,
          listen: { port },
          database: { client: 'better-sqlite3', connection: ':memory:' },
          ...(trustProxy === undefined ? {} : { trustProxy }),
          rateLimit: gpuRateLimit(3),
        },
      },
    }),
  );
  await backend.start();
  stops.push(() => backend.stop());
  const from = async (client: string) =>
    (
      await request(`http://127.0.0.1:${port}`)
        .get('/api/gpu/health')
        .set('x-forwarded-for', client)
    ).status;
  return { from };
}

// Each test starts a backend; Jest's default 5 s was passed on a loaded machine.
jest.setTimeout(30_000);

describe('rate limiting of /api/gpu', () => {
  it("answers 429 past backend.rateLimit.plugin.gpu's limit, as Backstage's http router applies it", async () => {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        mockServices.rootConfig.factory({
          data: {
            gpu: demoPlatformConfig,
            backend: { rateLimit: gpuRateLimit(5) },
          },
        }),
      ],
    });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await request(server).get('/api/gpu/platform')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await request(server).get('/api/gpu/services');
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toMatch(/Too many requests/);
  });

  it('counts two users behind one proxy separately when backend.trustProxy trusts the proxy', async () => {
    // One hop: the proxy (here on loopback) appends the client's address to X-Forwarded-For.
    const { from } = await startBehindProxy(1);
    const alice: number[] = [];
    const bob: number[] = [];
    for (let i = 0; i < 4; i++) {
      alice.push(await from('203.0.113.10'));
      bob.push(await from('203.0.113.20'));
    }
    expect(alice).toEqual([200, 200, 200, 429]);
    expect(bob).toEqual([200, 200, 200, 429]);
  });

  it("counts every user behind a proxy as one client without backend.trustProxy (the proxy's address)", async () => {
    const { from } = await startBehindProxy(undefined);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      statuses.push(await from('203.0.113.10'));
      statuses.push(await from('203.0.113.20'));
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
