import {
  mockCredentials,
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';

jest.setTimeout(180_000);

/**
 * Every route of /api/gpu, called by each role on its own team's and another team's resources, against the
 * policy the app installs (GpuPlatformPolicy behind the real permission backend), on SQLite and PostgreSQL.
 * Roles: alice (platform team), bob (ml-platform), carol (search), and a caller that is not signed in.
 */
const databases = TestDatabases.create({ ids: ['POSTGRES_15', 'SQLITE_3'] });

type Role = 'alice' | 'bob' | 'carol' | 'none';
const ROLES: Role[] = ['alice', 'bob', 'carol', 'none'];
const header = (role: Role) =>
  role === 'none' ? mockCredentials.none.header() : asUser(role);

/** One small dev service of a team (a dedicated on-demand L4, within quota). */
const serviceOf = (team: string, name: string): ServiceRequest => ({
  ...devSummariser,
  team,
  name,
});

type Http = ReturnType<typeof request>;

/** What a case acts on: one service of ml-platform (bob's team) and, for approvals, a pending request of it. */
interface Fixture {
  mlService: string;
  searchService: string;
  mlApproval: string;
}

interface Case {
  route: string;
  call: (http: Http, as: string, fixture: Fixture) => request.Test;
  expected: Record<Role, number>;
}

/** The error each refusal carries: Backstage's error body names the error class. */
const ERROR_NAMES: Record<number, string | undefined> = {
  400: 'InputError',
  401: 'AuthenticationError',
  403: 'NotAllowedError',
  409: 'ConflictError',
};

let sequence = 0;
const unique = (prefix: string) => `${prefix}-${++sequence}`;

const CASES: Case[] = [
  {
    route: 'GET /health',
    call: (http, as) => http.get('/api/gpu/health').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 200, none: 200 },
  },
  {
    route: 'GET /platform',
    call: (http, as) => http.get('/api/gpu/platform').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 200, none: 401 },
  },
  {
    // No cluster is configured here: the platform team gets past the permission check to the unknown cluster.
    route: 'GET /platform/manifests',
    call: (http, as) =>
      http
        .get('/api/gpu/platform/manifests?cluster=gpu-gitops')
        .set('Authorization', as),
    expected: { alice: 400, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'GET /platform/checks',
    call: (http, as) =>
      http.get('/api/gpu/platform/checks').set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'POST /quote',
    call: (http, as) =>
      http
        .post('/api/gpu/quote')
        .set('Authorization', as)
        .send(serviceOf('ml-platform', 'quoted')),
    expected: { alice: 200, bob: 200, carol: 200, none: 401 },
  },
  {
    route: 'POST /services for ml-platform',
    call: (http, as) =>
      http
        .post('/api/gpu/services')
        .set('Authorization', as)
        .send({ request: serviceOf('ml-platform', unique('new')) }),
    expected: { alice: 201, bob: 201, carol: 403, none: 401 },
  },
  {
    route: 'POST /services dryRun for ml-platform',
    call: (http, as) =>
      http
        .post('/api/gpu/services')
        .set('Authorization', as)
        .send({
          request: serviceOf('ml-platform', unique('preview')),
          dryRun: true,
        }),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /services',
    call: (http, as) => http.get('/api/gpu/services').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 200, none: 401 },
  },
  {
    route: 'GET /services/:id of ml-platform',
    call: (http, as, f) =>
      http.get(`/api/gpu/services/${f.mlService}`).set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /services/:id of search',
    call: (http, as, f) =>
      http.get(`/api/gpu/services/${f.searchService}`).set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 200, none: 401 },
  },
  {
    route: 'PATCH /services/:id of ml-platform',
    call: (http, as, f) =>
      http
        .patch(`/api/gpu/services/${f.mlService}`)
        .set('Authorization', as)
        .send({ model: 'llama-3.2-3b' }),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'POST /services/:id/retry of ml-platform (not failed)',
    call: (http, as, f) =>
      http
        .post(`/api/gpu/services/${f.mlService}/retry`)
        .set('Authorization', as),
    expected: { alice: 409, bob: 409, carol: 403, none: 401 },
  },
  {
    route: 'POST /services/:id/confirm of ml-platform',
    call: (http, as, f) =>
      http
        .post(`/api/gpu/services/${f.mlService}/confirm`)
        .set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'DELETE /services/:id of ml-platform',
    call: (http, as, f) =>
      http.delete(`/api/gpu/services/${f.mlService}`).set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'DELETE /services/:id of search',
    call: (http, as, f) =>
      http
        .delete(`/api/gpu/services/${f.searchService}`)
        .set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 200, none: 401 },
  },
  {
    route: 'GET /services/:id/usage of ml-platform',
    call: (http, as, f) =>
      http
        .get(`/api/gpu/services/${f.mlService}/usage`)
        .set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /services/:id/cost of ml-platform',
    call: (http, as, f) =>
      http
        .get(`/api/gpu/services/${f.mlService}/cost`)
        .set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /teams/ml-platform/quota',
    call: (http, as) =>
      http.get('/api/gpu/teams/ml-platform/quota').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'PUT /teams/ml-platform/quota',
    call: (http, as) =>
      http
        .put('/api/gpu/teams/ml-platform/quota')
        .set('Authorization', as)
        .send({
          pools: { ...demoPlatformConfig.teams[0].gpuQuota, 'l4-ondemand': 2 },
          monthlyBudget: '60000',
        }),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'GET /teams/ml-platform/cost',
    call: (http, as) =>
      http.get('/api/gpu/teams/ml-platform/cost').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /overview',
    call: (http, as) => http.get('/api/gpu/overview').set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'GET /overview/services',
    call: (http, as) =>
      http.get('/api/gpu/overview/services').set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'GET /approvals',
    call: (http, as) => http.get('/api/gpu/approvals').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 200, none: 401 },
  },
  {
    route: "POST /approvals/:id/approve of bob's request",
    call: (http, as, f) =>
      http
        .post(`/api/gpu/approvals/${f.mlApproval}/approve`)
        .set('Authorization', as)
        .send({ allowOverQuota: true }),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: "POST /approvals/:id/reject of bob's request",
    call: (http, as, f) =>
      http
        .post(`/api/gpu/approvals/${f.mlApproval}/reject`)
        .set('Authorization', as)
        .send({ comment: 'not this quarter' }),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
  {
    route: 'GET /audit',
    call: (http, as) => http.get('/api/gpu/audit').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 200, none: 401 },
  },
  {
    route: 'GET /audit?team=ml-platform',
    call: (http, as) =>
      http.get('/api/gpu/audit?team=ml-platform').set('Authorization', as),
    expected: { alice: 200, bob: 200, carol: 403, none: 401 },
  },
  {
    route: 'GET /clusters/drift',
    call: (http, as) =>
      http.get('/api/gpu/clusters/drift').set('Authorization', as),
    expected: { alice: 200, bob: 403, carol: 403, none: 401 },
  },
];

describe.each(databases.eachSupportedId())(
  'permission matrix on %s',
  (databaseId: TestDatabaseId) => {
    let http: Http;

    beforeAll(async () => {
      const knex = await databases.init(databaseId);
      const { server } = await startTestBackend({
        features: [
          gpuPlugin,
          mockServices.rootConfig.factory({
            data: { gpu: demoPlatformConfig, permission: { enabled: true } },
          }),
          mockServices.database.factory({ knex }),
          demoUserInfo(),
          ...realPermissionPolicy(),
        ],
      });
      http = request(server);
      // 2 of the pool's 4 L4s: 3 replicas are over quota but within the pool's capacity.
      await http
        .put('/api/gpu/teams/ml-platform/quota')
        .set('Authorization', asUser('alice'))
        .send({
          pools: { ...demoPlatformConfig.teams[0].gpuQuota, 'l4-ondemand': 2 },
          monthlyBudget: '60000',
        })
        .expect(200);
    });

    async function create(as: Role, body: ServiceRequest): Promise<string> {
      const res = await http
        .post('/api/gpu/services')
        .set('Authorization', header(as))
        .send({ request: body })
        .expect(201);
      return res.body.id;
    }

    async function fixture(): Promise<Fixture> {
      const mlService = await create(
        'bob',
        serviceOf('ml-platform', unique('ml')),
      );
      // On spot (a dev service may be): the L4 on-demand pool stays free for ml-platform's approvals.
      const searchService = await create('carol', {
        ...serviceOf('search', unique('search')),
        pool: 'spot-l4',
      });
      const pending = await http
        .post('/api/gpu/services')
        .set('Authorization', asUser('bob'))
        .send({
          request: { ...serviceOf('ml-platform', unique('big')), replicas: 3 },
        })
        .expect(201);
      expect(pending.body.status).toBe('pending-approval');
      return {
        mlService,
        searchService,
        mlApproval: pending.body.approval.id,
      };
    }

    /** Tears down what a case left, as the platform team, so quota is free for the next one. */
    async function cleanUp(f: Fixture) {
      const { body } = await http
        .get('/api/gpu/services?limit=200')
        .set('Authorization', asUser('alice'))
        .expect(200);
      for (const service of body.items as { id: string; status: string }[]) {
        if (['deleted', 'rejected'].includes(service.status)) continue;
        if (service.status === 'pending-approval') {
          const approval = (service as { approval?: { id: string } }).approval;
          if (approval && approval.id === f.mlApproval) {
            await http
              .post(`/api/gpu/approvals/${approval.id}/reject`)
              .set('Authorization', asUser('alice'))
              .send({});
          }
          continue;
        }
        await http
          .delete(`/api/gpu/services/${service.id}`)
          .set('Authorization', asUser('alice'))
          .expect(200);
      }
    }

    it.each(CASES.flatMap(c => ROLES.map(role => [c.route, role, c] as const)))(
      '%s as %s',
      async (_route, role, c) => {
        const f = await fixture();
        try {
          const res = await c.call(http, header(role), f);
          const expected = c.expected[role];
          expect({ status: res.status, error: res.body.error?.name }).toEqual({
            status: expected,
            error: ERROR_NAMES[expected],
          });
        } finally {
          await cleanUp(f);
        }
      },
    );

    it('lists only what each role may read', async () => {
      const f = await fixture();
      try {
        const teamsSeenBy = async (role: Role) => {
          const { body } = await http
            .get('/api/gpu/services?limit=200')
            .set('Authorization', asUser(role))
            .expect(200);
          return new Set(body.items.map((s: { team: string }) => s.team));
        };
        expect(await teamsSeenBy('alice')).toEqual(
          new Set(['ml-platform', 'search']),
        );
        expect(await teamsSeenBy('bob')).toEqual(new Set(['ml-platform']));
        expect(await teamsSeenBy('carol')).toEqual(new Set(['search']));

        const approvalsSeenBy = async (role: Role) =>
          (
            await http
              .get('/api/gpu/approvals?state=pending')
              .set('Authorization', asUser(role))
              .expect(200)
          ).body.items.map((a: { id: string }) => a.id);
        expect(await approvalsSeenBy('alice')).toContain(f.mlApproval);
        expect(await approvalsSeenBy('bob')).toContain(f.mlApproval);
        expect(await approvalsSeenBy('carol')).not.toContain(f.mlApproval);

        const auditTeamsSeenBy = async (role: Role) => {
          const { body } = await http
            .get('/api/gpu/audit?limit=500')
            .set('Authorization', asUser(role))
            .expect(200);
          return new Set(
            body.items
              .map((e: { team?: string }) => e.team)
              .filter((t: string | undefined) => t !== undefined),
          );
        };
        expect(await auditTeamsSeenBy('carol')).toEqual(new Set(['search']));
        expect(await auditTeamsSeenBy('alice')).toEqual(
          new Set(['ml-platform', 'search']),
        );
      } finally {
        await cleanUp(f);
      }
    });

    it('never lets anyone decide their own request, not even the platform team', async () => {
      const own = await http
        .post('/api/gpu/services')
        .set('Authorization', asUser('alice'))
        .send({
          request: { ...serviceOf('ml-platform', unique('own')), replicas: 3 },
        })
        .expect(201);
      expect(own.body.status).toBe('pending-approval');
      const refused = await http
        .post(`/api/gpu/approvals/${own.body.approval.id}/approve`)
        .set('Authorization', asUser('alice'))
        .send({ allowOverQuota: true })
        .expect(403);
      expect(refused.body.error.message).toMatch(/own/);
      const still = await http
        .get(`/api/gpu/services/${own.body.id}`)
        .set('Authorization', asUser('alice'))
        .expect(200);
      expect(still.body.status).toBe('pending-approval');
      await http
        .post(`/api/gpu/approvals/${own.body.approval.id}/reject`)
        .set('Authorization', asUser('alice'))
        .send({})
        .expect(403);
    });

    it('refuses, even with the override, an approval beyond the pool’s physical capacity', async () => {
      // Four L4 pools' worth: the quota is 2 and the pool has 4 GPUs, so 5 replicas can never be placed.
      const tooBig = await http
        .post('/api/gpu/services')
        .set('Authorization', asUser('bob'))
        .send({
          request: { ...serviceOf('ml-platform', unique('huge')), replicas: 5 },
        });
      expect(tooBig.status).toBe(400);
      expect(tooBig.body.error.message).toMatch(/capacity/i);
      const { body } = await http
        .get('/api/gpu/teams/ml-platform/quota')
        .set('Authorization', asUser('bob'))
        .expect(200);
      expect(body.reservedGpuEquivalents['l4-ondemand'] ?? 0).toBe(0);
    });
  },
);
