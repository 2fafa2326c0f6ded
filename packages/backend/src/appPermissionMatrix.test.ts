/*
 * The permissions of other plugins that GpuPlatformPolicy decides, on the real backend (every plugin of src/index.ts,
 * as a child process) with users signed in through the oauth2Proxy provider as behind an authenticating proxy:
 * alice (platform team), bob (ml-platform), carol (search) of examples/org.yaml, and a caller that is not signed in.
 * The Kubernetes plugin reads a loopback stand-in for a cluster's API server; the scaffolder runs a template of
 * one `debug:wait` step, so each task is still running when it is read or cancelled; the gpu plugin's change signals
 * are received on WebSockets of the signals backend, with each user's token and with none.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BackendProcess,
  freePort,
  IN_MEMORY_DATABASE,
  startBackendProcess,
} from './__testUtils__/startBackendProcess';

jest.setTimeout(240_000);

type Role = 'alice' | 'bob' | 'carol' | 'none';
const ROLES: Role[] = ['alice', 'bob', 'carol', 'none'];
const REPO_ROOT = path.resolve(__dirname, '../../..');

/** The catalog file of this suite: ml-platform's service with Kubernetes objects, components to delete, a template. */
function catalogFile(): string {
  const component = (name: string, owner: string, extra = '') => `---
apiVersion: backstage.io/v1alpha1
kind: Component
metadata:
  name: ${name}
  annotations:
    backstage.io/kubernetes-id: ${name}${extra}
spec:
  type: service
  lifecycle: production
  owner: group:default/${owner}
`;
  return [
    component('ml-chat', 'ml-platform'),
    ...ROLES.map(role => component(`ml-doomed-${role}`, 'ml-platform')),
    `---
apiVersion: scaffolder.backstage.io/v1beta3
kind: Template
metadata:
  name: slow-task
spec:
  owner: group:default/search
  type: service
  parameters: []
  steps:
    - id: wait
      name: Wait
      action: debug:wait
      input:
        minutes: 5
`,
  ].join('');
}

/** A stand-in for a cluster's API server: every GET answers an empty list, and the requests are recorded. */
async function fakeApiServer(): Promise<{
  url: string;
  server: Server;
  paths: string[];
}> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'List', apiVersion: 'v1', items: [] }));
  });
  await new Promise<void>(ok => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, paths };
}

/** PostgreSQL when the test environment has one (scripts/lib.sh ensure_postgres), required with GPU_REQUIRE_POSTGRES. */
const POSTGRES =
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING;
if (process.env.GPU_REQUIRE_POSTGRES && !POSTGRES) {
  throw new Error(
    'GPU_REQUIRE_POSTGRES is set but BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING is not',
  );
}
/** Every plugin's database of this run on PostgreSQL starts with this prefix, and is dropped after. */
const PG_PREFIX = `matrix_${process.pid}_${Date.now().toString(36)}_`;
const DATABASES: Array<[string, Record<string, unknown>]> = [
  ['SQLite', IN_MEMORY_DATABASE],
  ...(POSTGRES
    ? ([
        [
          'PostgreSQL',
          { client: 'pg', connection: POSTGRES, prefix: PG_PREFIX },
        ],
      ] as Array<[string, Record<string, unknown>]>)
    : []),
];

/** Drops the databases the backend created with {@link PG_PREFIX}. */
async function dropPrefixedDatabases(connectionString: string) {
  // pg (a dependency of this package) has no bundled types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('pg');
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${PG_PREFIX}%`],
    );
    for (const { datname } of rows as Array<{ datname: string }>) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

describe.each(DATABASES)(
  'permissions of the Kubernetes, scaffolder, catalog and signals plugins under GpuPlatformPolicy, on %s',
  (databaseName, database) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpu-app-permissions-'));
    let backend: BackendProcess;
    let cluster: Awaited<ReturnType<typeof fakeApiServer>>;
    const tokens: Partial<Record<Role, string>> = {};

    const call = (
      role: Role,
      route: string,
      init: RequestInit & { headers?: Record<string, string> } = {},
    ) =>
      fetch(`${backend.baseUrl}${route}`, {
        ...init,
        headers: {
          ...(role === 'none'
            ? {}
            : { authorization: `Bearer ${tokens[role]}` }),
          ...(init.body ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
      });

    /** An answer's status; for a server error, with its body and the backend's last log lines, to tell why. */
    const statusOf = async (res: Response) =>
      res.status >= 500
        ? `${res.status}: ${await res.text()}\n${backend.log().slice(-4000)}`
        : res.status;

    const signIn = (user?: string) =>
      fetch(`${backend.baseUrl}/api/auth/oauth2Proxy/refresh`, {
        headers: {
          'x-requested-with': 'XMLHttpRequest',
          ...(user ? { 'x-forwarded-user': user } : {}),
        },
      });

    async function waitFor<T>(
      what: string,
      read: () => Promise<T | undefined>,
    ) {
      for (let i = 0; i < 240; i++) {
        const value = await read();
        if (value !== undefined) return value;
        await new Promise(r => setTimeout(r, 500));
      }
      throw new Error(`timed out waiting for ${what}`);
    }

    beforeAll(async () => {
      cluster = await fakeApiServer();
      const entities = path.join(dir, 'entities.yaml');
      writeFileSync(entities, catalogFile());
      backend = await startBackendProcess({
        port: await freePort(),
        configFile: path.join(dir, 'config.json'),
        config: {
          backend: { database },
          auth: {
            providers: {
              oauth2Proxy: {
                signIn: {
                  resolvers: [
                    { resolver: 'forwardedUserMatchingUserEntityName' },
                  ],
                },
              },
            },
          },
          catalog: {
            locations: [
              {
                type: 'file',
                target: path.join(REPO_ROOT, 'examples/org.yaml'),
                rules: [{ allow: ['User', 'Group'] }],
              },
              {
                type: 'file',
                target: entities,
                rules: [{ allow: ['Component', 'Template'] }],
              },
              // What scaffolder.gpu.catalogDirectory writes must stay readable (the module checks at start-up).
              {
                type: 'file',
                target: '../../local-catalog/*.yaml',
                rules: [{ allow: ['Component'] }],
              },
            ],
          },
          kubernetes: {
            serviceLocatorMethod: { type: 'multiTenant' },
            clusterLocatorMethods: [
              {
                type: 'config',
                clusters: [
                  {
                    name: 'local',
                    url: cluster.url,
                    authProvider: 'serviceAccount',
                    serviceAccountToken:
                      'token-of-the-backstage-service-account',
                    skipMetricsLookup: true,
                  },
                ],
              },
            ],
          },
        },
      });
      // Users sign in once the catalog has read examples/org.yaml.
      for (const role of ['alice', 'bob', 'carol'] as const) {
        tokens[role] = await waitFor(`${role} to sign in`, async () => {
          const res = await signIn(role);
          return res.ok
            ? (await res.json()).backstageIdentity.token
            : undefined;
        });
      }
      await waitFor('the suite entities', async () => {
        const res = await call(
          'alice',
          '/api/catalog/entities/by-name/template/default/slow-task',
        );
        const doomed = await call(
          'alice',
          '/api/catalog/entities/by-name/component/default/ml-doomed-none',
        );
        return res.ok && doomed.ok ? true : undefined;
      });
    });

    afterAll(async () => {
      await backend?.stop();
      await new Promise(ok => cluster?.server.close(ok));
      rmSync(dir, { recursive: true, force: true });
      if (databaseName === 'PostgreSQL' && POSTGRES) {
        await dropPrefixedDatabases(POSTGRES);
      }
    });

    describe('sign-in through the proxy', () => {
      it('answers 401, not 500, for a user the catalog does not have or no forwarded user', async () => {
        for (const res of [await signIn('mallory'), await signIn()]) {
          expect(res.status).toBe(401);
          const body = await res.json();
          expect(body.error.name).toBe('AuthenticationError');
          expect(body.error.message).not.toMatch(/mallory|catalog.*query/i);
        }
      });
    });

    describe('the Kubernetes plugin', () => {
      it.each([
        ['alice', 200],
        ['bob', 200],
        ['carol', 403],
        ['none', 401],
      ] as const)(
        "the proxy to ml-platform's pods as %s answers %i",
        async (role, status) => {
          const before = cluster.paths.length;
          const res = await call(
            role,
            '/api/kubernetes/proxy/api/v1/namespaces/ml-platform/pods',
            { headers: { 'backstage-kubernetes-cluster': 'local' } },
          );
          expect(res.status).toBe(status);
          // Only an allowed call reaches the cluster.
          expect(cluster.paths.length > before).toBe(status === 200);
        },
      );

      it("passes a team member's reads of the team's own namespaces only, nothing else of the proxy", async () => {
        const proxied = async (
          role: Role,
          route: string,
          init: RequestInit = {},
        ) => {
          const before = cluster.paths.length;
          const res = await call(role, `/api/kubernetes/proxy${route}`, {
            ...init,
            headers: { 'backstage-kubernetes-cluster': 'local' },
          });
          return { status: res.status, reached: cluster.paths.length > before };
        };
        const allowed = { status: 200, reached: true };
        const refused = { status: 403, reached: false };
        for (const [role, route, init, expected] of [
          // bob of ml-platform: its second namespace and another API group's objects there are his team's.
          ['bob', '/api/v1/namespaces/ml-serving/services', {}, allowed],
          [
            'bob',
            '/apis/apps/v1/namespaces/ml-platform/deployments/ml-chat',
            {},
            allowed,
          ],
          ['carol', '/api/v1/namespaces/search/pods', {}, allowed],
          // Another team's namespace, cluster-scoped objects, Secrets, the proxy subresource and writes are not.
          ['bob', '/api/v1/namespaces/search/pods', {}, refused],
          ['bob', '/api/v1/nodes', {}, refused],
          ['bob', '/api/v1/namespaces', {}, refused],
          ['bob', '/api/v1/namespaces/ml-platform/secrets', {}, refused],
          [
            'bob',
            '/api/v1/namespaces/ml-platform/services/ml-chat/proxy/v1/models',
            {},
            refused,
          ],
          [
            'bob',
            '/api/v1/namespaces/ml-platform/pods/ml-chat-0',
            { method: 'DELETE' },
            refused,
          ],
          [
            'bob',
            '/api/v1/namespaces/ml-platform/pods',
            { method: 'POST', body: '{}' },
            refused,
          ],
          [
            'none',
            '/api/v1/namespaces/ml-platform/pods',
            {},
            { status: 401, reached: false },
          ],
          // The platform team keeps the whole proxy.
          ['alice', '/api/v1/nodes', {}, allowed],
        ] as const) {
          expect({
            role,
            route,
            ...(await proxied(role, route, init)),
          }).toEqual({
            role,
            route,
            ...expected,
          });
        }
      });

      it.each([
        ['alice', 200],
        ['bob', 200],
        ['carol', 403],
        ['none', 401],
      ] as const)(
        "the objects of ml-platform's component as %s: %i",
        async (role, status) => {
          const before = cluster.paths.length;
          const workloads = await call(
            role,
            '/api/kubernetes/resources/workloads/query',
            {
              method: 'POST',
              body: JSON.stringify({
                entityRef: 'component:default/ml-chat',
                auth: {},
              }),
            },
          );
          expect(workloads.status).toBe(status);
          const entity = await call(
            'alice',
            '/api/catalog/entities/by-name/component/default/ml-chat',
          );
          const byService = await call(
            role,
            '/api/kubernetes/services/ml-chat',
            {
              method: 'POST',
              body: JSON.stringify({ entity: await entity.json(), auth: {} }),
            },
          );
          expect(byService.status).toBe(status);
          // Allowed reads ask the cluster for the component's objects by its label; refused ones never reach it.
          const asked = cluster.paths
            .slice(before)
            .filter(p =>
              decodeURIComponent(p).includes(
                'backstage.io/kubernetes-id=ml-chat',
              ),
            );
          expect(asked.length > 0).toBe(status === 200);
        },
      );

      it('lists the configured clusters to every signed-in user', async () => {
        for (const role of ['alice', 'bob', 'carol'] as const) {
          expect((await call(role, '/api/kubernetes/clusters')).status).toBe(
            200,
          );
        }
        expect((await call('none', '/api/kubernetes/clusters')).status).toBe(
          401,
        );
      });
    });

    describe('scaffolder tasks', () => {
      const startTask = async (role: Role): Promise<string> => {
        const res = await call(role, '/api/scaffolder/v2/tasks', {
          method: 'POST',
          body: JSON.stringify({
            templateRef: 'template:default/slow-task',
            values: {},
          }),
        });
        expect(res.status).toBe(201);
        const { id } = await res.json();
        // Running its step, so reading and cancelling act on a task in progress. Claimed is not enough: until its
        // first step's event, the scaffolder's cancel answers 500 (plugin-scaffolder-backend 4.3.0's
        // `StorageTaskBroker.cancel` reduces the events with a step id, and the start-up log has none).
        await waitFor(`task ${id} to run its step`, async () => {
          const events = await call(
            role,
            `/api/scaffolder/v2/tasks/${id}/events`,
          );
          const list: { body?: { stepId?: string } }[] = await events.json();
          return list.some(event => event.body?.stepId) ? true : undefined;
        });
        return id;
      };

      it.each([
        ['alice', 200],
        ['bob', 403],
        ['carol', 200],
        ['none', 401],
      ] as const)("carol's task read as %s: %i", async (role, status) => {
        const id = await startTask('carol');
        try {
          expect(
            (await call(role, `/api/scaffolder/v2/tasks/${id}`)).status,
          ).toBe(status);
          expect(
            (await call(role, `/api/scaffolder/v2/tasks/${id}/events`)).status,
          ).toBe(status);
          // The event stream answers its status before it streams: read no further.
          const stream = new AbortController();
          const streamed = await call(
            role,
            `/api/scaffolder/v2/tasks/${id}/eventstream`,
            { signal: stream.signal },
          );
          stream.abort();
          expect(streamed.status).toBe(status);
        } finally {
          await call('carol', `/api/scaffolder/v2/tasks/${id}/cancel`, {
            method: 'POST',
          });
        }
      });

      it.each([
        ['alice', 200],
        ['bob', 403],
        ['carol', 200],
        ['none', 401],
      ] as const)("carol's task cancelled by %s: %i", async (role, status) => {
        const id = await startTask('carol');
        try {
          const res = await call(
            role,
            `/api/scaffolder/v2/tasks/${id}/cancel`,
            {
              method: 'POST',
            },
          );
          expect(await statusOf(res)).toBe(status);
        } finally {
          await call('carol', `/api/scaffolder/v2/tasks/${id}/cancel`, {
            method: 'POST',
          });
        }
      });

      it.each([
        ['alice', 201],
        ['bob', 403],
        ['carol', 201],
        ['none', 401],
      ] as const)(
        "carol's cancelled task retried by %s: %i",
        async (role, status) => {
          const id = await startTask('carol');
          try {
            await call('carol', `/api/scaffolder/v2/tasks/${id}/cancel`, {
              method: 'POST',
            });
            // Only a task that has ended may be retried (409 before).
            await waitFor(`task ${id} to end`, async () => {
              const task = await call(
                'carol',
                `/api/scaffolder/v2/tasks/${id}`,
              );
              const { status: state } = await task.json();
              return ['cancelled', 'failed', 'completed'].includes(state)
                ? true
                : undefined;
            });
            const res = await call(
              role,
              `/api/scaffolder/v2/tasks/${id}/retry`,
              {
                method: 'POST',
                body: JSON.stringify({}),
              },
            );
            expect(await statusOf(res)).toBe(status);
          } finally {
            await call('carol', `/api/scaffolder/v2/tasks/${id}/cancel`, {
              method: 'POST',
            });
          }
        },
      );

      it("lists carol's task to carol and the platform team only", async () => {
        const id = await startTask('carol');
        try {
          const listed = async (role: Role) => {
            const res = await call(role, '/api/scaffolder/v2/tasks');
            expect(res.status).toBe(200);
            return (await res.json()).tasks.map((t: { id: string }) => t.id);
          };
          expect(await listed('alice')).toContain(id);
          expect(await listed('carol')).toContain(id);
          expect(await listed('bob')).not.toContain(id);
          expect((await call('none', '/api/scaffolder/v2/tasks')).status).toBe(
            401,
          );
        } finally {
          await call('carol', `/api/scaffolder/v2/tasks/${id}/cancel`, {
            method: 'POST',
          });
        }
      });
    });

    describe('signals of GPU service changes', () => {
      /** The HTTP status of a WebSocket upgrade on /api/signals that carries no token (101 if it were accepted). */
      function upgradeWithoutToken(): Promise<number> {
        const { hostname, port } = new URL(backend.baseUrl);
        return new Promise((resolve, reject) => {
          const upgrade = request({
            hostname,
            port,
            path: '/api/signals',
            headers: {
              Connection: 'Upgrade',
              Upgrade: 'websocket',
              'Sec-WebSocket-Version': '13',
              'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
            },
          });
          upgrade.on('response', response => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          upgrade.on('upgrade', (_response, socket) => {
            socket.destroy();
            resolve(101);
          });
          upgrade.on('error', reject);
          upgrade.end();
        });
      }

      /** A WebSocket on /api/signals subscribed to gpu:service-changes, with the user's token; its messages. */
      async function listen(role: Exclude<Role, 'none'>) {
        const url = `${backend.baseUrl.replace(/^http/, 'ws')}/api/signals`;
        const messages: unknown[] = [];
        // Try again until open: the backend may still be starting.
        const socket = await waitFor(
          `a signals socket for ${role}`,
          () =>
            new Promise<WebSocket | undefined>(resolve => {
              const ws = new WebSocket(url, tokens[role]);
              const giveUp = setTimeout(() => {
                ws.close();
                resolve(undefined);
              }, 2000);
              ws.onopen = () => {
                clearTimeout(giveUp);
                resolve(ws);
              };
              ws.onerror = () => {
                clearTimeout(giveUp);
                resolve(undefined);
              };
            }),
        );
        socket.onmessage = event =>
          messages.push(JSON.parse(String(event.data)));
        socket.send(
          JSON.stringify({
            action: 'subscribe',
            channel: 'gpu:service-changes',
          }),
        );
        return { socket, messages };
      }

      it("reach ml-platform's members and the platform team, not carol nor a socket without a token", async () => {
        const sockets = {
          alice: await listen('alice'),
          bob: await listen('bob'),
          carol: await listen('carol'),
        };
        // Signals 0.3.21 (Backstage 1.57) refuses an upgrade without user credentials, so nothing reaches it.
        expect(await upgradeWithoutToken()).toBe(401);
        try {
          await new Promise(r => setTimeout(r, 500));
          const created = await call('bob', '/api/gpu/services', {
            method: 'POST',
            body: JSON.stringify({
              request: {
                name: 'signalled',
                team: 'ml-platform',
                model: 'llama-3.1-8b',
                runtime: 'vllm',
                dtype: 'bf16',
                maxModelLen: 8192,
                concurrency: 64,
                replicas: 1,
                environment: 'dev',
                tier: 'dedicated',
                pool: 'l4-ondemand',
              },
            }),
          });
          expect(created.status).toBe(201);
          const { id } = await created.json();
          for (
            let i = 0;
            i < 40 &&
            (sockets.bob.messages.length === 0 ||
              sockets.alice.messages.length === 0);
            i++
          ) {
            await new Promise(r => setTimeout(r, 250));
          }
          expect(sockets.bob.messages).toContainEqual({
            channel: 'gpu:service-changes',
            message: expect.objectContaining({
              serviceId: id,
              team: 'ml-platform',
            }),
          });
          // Give any stray message time to arrive before counting none.
          await new Promise(r => setTimeout(r, 1000));
          expect(sockets.carol.messages).toEqual([]);
          await call('bob', `/api/gpu/services/${id}`, { method: 'DELETE' });
        } finally {
          for (const { socket } of Object.values(sockets)) socket.close();
        }
      });
    });

    describe('catalog deletes', () => {
      it.each([
        ['alice', 204],
        ['bob', 204],
        ['carol', 403],
        ['none', 401],
      ] as const)(
        'an ml-platform component deleted by %s: %i',
        async (role, status) => {
          const entity = await (
            await call(
              'alice',
              `/api/catalog/entities/by-name/component/default/ml-doomed-${role}`,
            )
          ).json();
          const res = await call(
            role,
            `/api/catalog/entities/by-uid/${entity.metadata.uid}`,
            {
              method: 'DELETE',
            },
          );
          expect(res.status).toBe(status);
          const after = await call(
            'alice',
            `/api/catalog/entities/by-uid/${entity.metadata.uid}`,
          );
          expect(after.status).toBe(status === 204 ? 404 : 200);
        },
      );

      it('lets only the platform team delete a location', async () => {
        // A location id that does not exist: the permission is checked first, so the platform team gets past it to 404.
        const id = '00000000-0000-4000-8000-000000000000';
        for (const [role, status] of [
          ['carol', 403],
          ['bob', 403],
          ['none', 401],
          ['alice', 404],
        ] as const) {
          const res = await call(role, `/api/catalog/locations/${id}`, {
            method: 'DELETE',
          });
          expect({ role, status: res.status }).toEqual({ role, status });
        }
      });
    });
  },
);
