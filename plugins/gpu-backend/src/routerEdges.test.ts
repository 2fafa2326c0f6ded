/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "expectRefused"] }] */
import {
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import {
  demoPlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import createKnex, { Knex } from 'knex';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import { containsInternalAddress } from './errors/internalAddresses';

jest.setTimeout(120_000);

/**
 * The edges of /api/gpu on SQLite and PostgreSQL: what a quote shows of another team, bad input that must be a 4xx
 * on both databases (NUL characters, oversized cursors and bodies, amounts below the smallest unit), and a database
 * that stops answering (503 with Retry-After, then served again).
 */
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

const mlRequest: ServiceRequest = { ...devSummariser, name: 'edge-quote' };

describe.each(databases.eachSupportedId())(
  '/api/gpu edges on %s',
  (databaseId: TestDatabaseId) => {
    let knex: Knex;
    let http: ReturnType<typeof request>;

    beforeAll(async () => {
      knex = await databases.init(databaseId);
      const { server } = await startTestBackend({
        features: [
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: {
              // A Prometheus that refuses connections: cost cards degrade to allocation with a reason.
              gpu: {
                ...demoPlatformConfig,
                prometheus: { baseUrl: 'http://127.0.0.1:1' },
              },
              permission: { enabled: true },
            },
          }),
          mockServices.database.factory({ knex }),
          // Components of two teams and one owned by a user, for binding a service to a component.
          catalogServiceMock.factory({
            entities: [
              ['ml-chat', 'group:default/ml-platform'],
              ['search-ranker', 'group:default/search'],
              ['personal-bot', 'user:default/bob'],
            ].map(([name, owner]) => ({
              apiVersion: 'backstage.io/v1alpha1',
              kind: 'Component',
              metadata: { name, namespace: 'default' },
              spec: { type: 'service', lifecycle: 'production', owner },
            })),
          }),
          demoUserInfo(),
          ...realPermissionPolicy(),
        ],
      });
      http = request(server);
    });

    const as = (user: string) => ({ Authorization: asUser(user) });

    /** A 4xx of Backstage's error body whose message matches, with no internal address in it. */
    async function expectRefused(
      res: request.Test,
      status: number,
      message: RegExp,
    ) {
      const answer = await res;
      expect({
        status: answer.status,
        message: answer.body.error?.message,
      }).toEqual({
        status,
        message: expect.stringMatching(message),
      });
      expect(containsInternalAddress(JSON.stringify(answer.body))).toBe(false);
    }

    describe('POST /quote', () => {
      it("shows the team's quota, use and budget to its members and the platform team", async () => {
        for (const user of ['bob', 'alice']) {
          const res = await http
            .post('/api/gpu/quote')
            .set(as(user))
            .send(mlRequest)
            .expect(200);
          expect(res.body.teamFiguresWithheld).toBeUndefined();
          expect(res.body.recommended.quota).toEqual(
            expect.objectContaining({ nominal: 4, used: 0, fits: true }),
          );
          expect(res.body.recommended.budget).toEqual(
            expect.objectContaining({ committed: 0, fits: true }),
          );
        }
      });

      it('shows another team fit and price only, as GET /teams/{team}/quota refuses it', async () => {
        await http
          .get('/api/gpu/teams/ml-platform/quota')
          .set(as('carol'))
          .expect(403);
        const res = await http
          .post('/api/gpu/quote')
          .set(as('carol'))
          .send(mlRequest)
          .expect(200);
        expect(res.body.teamFiguresWithheld).toMatch(
          /may not read team ml-platform's quota/,
        );
        expect(res.body.options.length).toBeGreaterThan(0);
        for (const option of [...res.body.options, res.body.recommended]) {
          expect(Object.keys(option)).not.toEqual(
            expect.arrayContaining(['quota']),
          );
          expect(Object.keys(option)).not.toEqual(
            expect.arrayContaining(['budget']),
          );
          expect(option.cost.monthly).toBeGreaterThan(0);
          expect(option.slice.pool).toEqual(expect.any(String));
        }
        // The verdict weighs the platform's policy: dev allows the recommended tier at once.
        expect(res.body.recommended.verdict).toBe('allowed');
      });
    });

    describe('bad input is a 4xx', () => {
      it('refuses NUL characters in text filters, path parameters and bodies', async () => {
        await expectRefused(
          http.get('/api/gpu/services?search=a%00b').set(as('bob')),
          400,
          /Query parameter search must not contain a NUL character/,
        );
        await expectRefused(
          http.get('/api/gpu/audit?actor=%00').set(as('alice')),
          400,
          /Query parameter actor must not contain a NUL character/,
        );
        await expectRefused(
          http.get('/api/gpu/services/abc%00def').set(as('bob')),
          400,
          /path must not contain a NUL character/,
        );
        await expectRefused(
          http
            .post('/api/gpu/services')
            .set(as('bob'))
            .send({ request: mlRequest, requestKey: 'key\u0000' }),
          400,
          /Body field requestKey must not contain a NUL character/,
        );
        await expectRefused(
          http
            .put('/api/gpu/teams/ml-platform/quota')
            .set(as('alice'))
            .send({ pools: { 'l4\u0000': 1 }, monthlyBudget: '10' }),
          400,
          /must not contain a NUL character/,
        );
      });

      it('refuses env on a service request: services take no user-supplied environment', async () => {
        await expectRefused(
          http
            .post('/api/gpu/services')
            .set(as('bob'))
            .send({
              request: { ...mlRequest, env: { NVIDIA_VISIBLE_DEVICES: 'all' } },
            }),
          400,
          /^request\/body\/request must NOT have additional properties$/,
        );
      });

      it("refuses a batch job's NVIDIA_* and CUDA_MPS_* env keys, naming the key", async () => {
        const ocr = {
          name: 'ocr-backlog',
          team: 'search',
          environment: 'dev',
          pool: 'spot-l4',
          image: 'registry.example.com/ocr-worker:1.4.2',
          completions: 600,
          parallelism: 6,
          gpusPerPod: 1,
          backoffLimit: 6,
        };
        for (const [env, key] of [
          [{ NVIDIA_VISIBLE_DEVICES: 'all' }, 'NVIDIA_VISIBLE_DEVICES'],
          [
            { LOG_LEVEL: 'info', CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: '100' },
            'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE',
          ],
        ] as const) {
          await expectRefused(
            http
              .post('/api/gpu/batch-jobs')
              .set(as('carol'))
              .send({ request: { ...ocr, env } }),
            400,
            new RegExp(`env ${key} is not allowed`),
          );
        }
        const audit = await http
          .get('/api/gpu/audit?team=search')
          .set(as('alice'))
          .expect(200);
        expect(JSON.stringify(audit.body.items)).not.toContain('ocr-backlog');
      });

      it('refuses list cursors of a time no page ends at or with a NUL character', async () => {
        const cursor = (items: unknown[]) =>
          Buffer.from(JSON.stringify(items)).toString('base64url');
        for (const bad of [
          cursor(['+200000-01-01T00:00:00.000Z', 'x']),
          cursor(['2026-01-01T00:00:00.000Z', 'a\u0000']),
        ]) {
          await expectRefused(
            http.get(`/api/gpu/services?cursor=${bad}`).set(as('bob')),
            400,
            /^cursor must be the nextCursor of a previous page/,
          );
        }
        await expectRefused(
          http
            .get(
              `/api/gpu/approvals?cursor=${cursor([
                'requestedAt',
                'asc',
                '+200000-01-01T00:00:00.000Z',
                'x',
              ])}`,
            )
            .set(as('alice')),
          400,
          /^cursor must be the nextCursor of a previous page/,
        );
      });

      it('refuses an audit cursor of 23 digits', async () => {
        await expectRefused(
          http
            .get('/api/gpu/audit?cursor=12345678901234567890123')
            .set(as('alice')),
          400,
          /cursor must be the nextCursor of a previous page/,
        );
        await expectRefused(
          http
            .get('/api/gpu/audit?order=asc&cursor=asc.99999999999999999999')
            .set(as('alice')),
          400,
          /cursor must be the nextCursor of a previous page/,
        );
      });

      it('answers 413 for a 10 MB body, naming the limit', async () => {
        const huge = JSON.stringify({
          request: mlRequest,
          requestKey: 'x'.repeat(10 * 1024 * 1024),
        });
        await expectRefused(
          http
            .post('/api/gpu/services')
            .set(as('bob'))
            .set('Content-Type', 'application/json')
            .send(huge),
          413,
          /at most 256 KiB of JSON/,
        );
      });

      it('refuses quota amounts below the smallest unit instead of storing 0', async () => {
        await expectRefused(
          http
            .put('/api/gpu/teams/ml-platform/quota')
            .set(as('alice'))
            .send({ pools: { 'l4-ondemand': 0.00001 }, monthlyBudget: '10' }),
          400,
          /below the smallest amount, 1\/5040 GPU-equivalent/,
        );
        await expectRefused(
          http
            .put('/api/gpu/teams/ml-platform/quota')
            .set(as('alice'))
            .send({ pools: { 'l4-ondemand': 1 }, monthlyBudget: '0.0000001' }),
          400,
          /below the smallest amount, one micro-dollar/,
        );
        await expectRefused(
          http
            .put('/api/gpu/teams/ml-platform/quota')
            .set(as('alice'))
            .send({
              pools: { 'l4-ondemand': 1 },
              monthlyBudget: '1e999999999',
            }),
          400,
          /too large/,
        );
        const stored = await http
          .get('/api/gpu/teams/ml-platform/quota')
          .set(as('alice'))
          .expect(200);
        expect(stored.body.pools['l4-ondemand']).toBe(4);
      });
    });

    describe('binding a service to a catalog component', () => {
      const bound = (name: string, entityRef: string, dryRun = false) => ({
        request: { ...devSummariser, name },
        entityRef,
        ...(dryRun ? { dryRun } : {}),
      });
      const namesOfMlPlatform = async () =>
        (
          await http.get('/api/gpu/services').set(as('alice')).expect(200)
        ).body.items.map((s: { name: string }) => s.name);

      it("refuses another team's component or one no group owns, whoever asks, and records nothing", async () => {
        for (const [user, entityRef, owner] of [
          ['bob', 'component:default/search-ranker', 'group:default/search'],
          ['alice', 'search-ranker', 'group:default/search'],
          ['bob', 'component:default/personal-bot', 'no group'],
        ]) {
          await expectRefused(
            http
              .post('/api/gpu/services')
              .set(as(user))
              .send(bound(`bind-${user}`, entityRef)),
            403,
            new RegExp(
              `is owned by ${owner}, not group:default/ml-platform: a GPU service of team ml-platform can only be bound to one of its own components`,
            ),
          );
        }
        await expectRefused(
          http
            .post('/api/gpu/services')
            .set(as('bob'))
            .send(bound('bind-preview', 'search-ranker', true)),
          403,
          /is owned by group:default\/search/,
        );
        const names = await namesOfMlPlatform();
        for (const name of ['bind-bob', 'bind-alice', 'bind-preview']) {
          expect(names).not.toContain(name);
        }
      });

      it("binds the team's own component, and one the catalog does not have yet (the template registers it after)", async () => {
        const own = await http
          .post('/api/gpu/services')
          .set(as('bob'))
          .send(bound('bind-own', 'component:default/ml-chat'))
          .expect(201);
        expect(own.body.entityRef).toBe('component:default/ml-chat');
        const later = await http
          .post('/api/gpu/services')
          .set(as('bob'))
          .send(bound('bind-later', 'component:default/bind-later'))
          .expect(201);
        expect(later.body.entityRef).toBe('component:default/bind-later');
        for (const { body } of [own, later]) {
          const gone = await http
            .delete(`/api/gpu/services/${body.id}`)
            .set(as('bob'));
          expect(gone.status).toBeLessThan(300);
        }
      });
    });

    describe('answers name no internal address', () => {
      it("takes a cluster's address out of a stored status reason, in the service, the list and an error", async () => {
        const created = await http
          .post('/api/gpu/services')
          .set(as('bob'))
          .send({ request: { ...mlRequest, name: 'edge-reason' } })
          .expect(201);
        const reason =
          'Deployment ml-platform/edge-reason on cluster gpu failed after 3 attempts: request to https://127.0.0.1:17802/apis/apps/v1 failed, reason: connect ECONNREFUSED 127.0.0.1:17802';
        await knex('services')
          .where({ id: created.body.id })
          .update({ status_reason: reason });
        const one = await http
          .get(`/api/gpu/services/${created.body.id}`)
          .set(as('bob'))
          .expect(200);
        expect(one.body.statusReason).toBe(
          'Deployment ml-platform/edge-reason on cluster gpu failed after 3 attempts: request to (address withheld) failed, reason: connect ECONNREFUSED (address withheld)',
        );
        expect(one.body.endpoint).toMatch(
          /^http:\/\/.*\.svc\.cluster\.local:8000$/,
        );
        const list = await http
          .get('/api/gpu/services?search=edge-reason')
          .set(as('bob'))
          .expect(200);
        expect(JSON.stringify(list.body)).not.toContain('127.0.0.1');
        expect(list.body.items[0].statusReason).toContain('(address withheld)');
      });

      it("takes Prometheus's address out of a cost card's reason", async () => {
        const created = await http
          .post('/api/gpu/services')
          .set(as('bob'))
          .send({ request: { ...mlRequest, name: 'edge-cost' } })
          .expect(201);
        // Held for a moment, so that the card asks Prometheus about the window.
        await new Promise(resolve => setTimeout(resolve, 1100));
        const cost = await http
          .get(`/api/gpu/services/${created.body.id}/cost`)
          .set(as('bob'))
          .expect(200);
        expect(cost.body.metrics).toEqual({
          state: 'unavailable',
          reason: expect.stringMatching(/Prometheus/),
        });
        expect(JSON.stringify(cost.body)).not.toContain('127.0.0.1');
      });
    });

    describe('while the database is unavailable', () => {
      it('answers 503 with Retry-After and a message without addresses, then serves again', async () => {
        const restore = await makeUnavailable(databaseId, knex);
        try {
          const res = await http.get('/api/gpu/services').set(as('bob'));
          expect(res.status).toBe(503);
          expect(res.headers['retry-after']).toBe('5');
          expect(res.body.error).toEqual(
            expect.objectContaining({
              name: 'ServiceUnavailableError',
              message:
                'The GPU database is unavailable; try again in 5 seconds',
            }),
          );
          expect(JSON.stringify(res.body)).not.toMatch(
            /ECONNREFUSED|127\.0\.0\.1|5432|accepting connections|cause/,
          );
        } finally {
          await restore();
        }
        if (databaseId === 'POSTGRES_15') {
          await http.get('/api/gpu/services').set(as('bob')).expect(200);
        }
      });
    });
  },
);

/**
 * Makes the plugin's database refuse it, the way a restart does to the pool: on PostgreSQL the database stops
 * accepting connections and its sessions are terminated (restore lets it accept again); on SQLite, whose database
 * is the one in-memory connection, the pool is closed (for good: this is the suite's last test).
 */
async function makeUnavailable(
  databaseId: TestDatabaseId,
  knex: Knex,
): Promise<() => Promise<void>> {
  if (databaseId !== 'POSTGRES_15') {
    await knex.destroy();
    return async () => {};
  }
  const {
    rows: [{ name }],
  } = await knex.raw('SELECT current_database() AS name');
  // The server TestDatabases connects to, as the test environment names it.
  const admin = createKnex({
    client: 'pg',
    connection:
      process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING,
  });
  await admin.raw(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin.raw(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()',
    [name],
  );
  return async () => {
    await admin.raw(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await admin.destroy();
  };
}
