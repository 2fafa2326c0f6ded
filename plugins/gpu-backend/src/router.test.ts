import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import fc from 'fast-check';
import request from 'supertest';
import { lowerMlPlatformL4Quota } from './__testUtils__/requestsBeyondQuota';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { gpuPlugin } from './plugin';
import {
  asUser,
  DEMO_USERS,
  demoUserInfo,
  realPermissionPolicy,
} from './__testUtils__/demoUsers';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

// Each case goes through the permission backend too; the property test makes many such calls.
jest.setTimeout(60_000);

const summariser = {
  ...summariserRequest,
  tier: 'dedicated',
  pool: 'l4-ondemand',
};

/**
 * The plugin behind the permission backend with the app's policy. Requests without a header come from the mock
 * user, a member of `groups` (default ml-platform); `asUser('alice')` is the platform team.
 */
async function start(options: { groups?: string[]; allow?: boolean } = {}) {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: { gpu: demoPlatformConfig, permission: { enabled: true } },
      }),
      demoUserInfo({ ...DEMO_USERS, mock: options.groups ?? ['ml-platform'] }),
      ...(options.allow === false
        ? [
            mockServices.permissions.mock({
              authorize: async requests =>
                requests.map(() => ({ result: AuthorizeResult.DENY })),
              authorizeConditional: async requests =>
                requests.map(() => ({ result: AuthorizeResult.DENY })),
            }).factory,
          ]
        : realPermissionPolicy()),
    ],
  });
  return server;
}

describe('gpu service routes (dry-run cluster)', () => {
  it('creates a service, reserves quota in the same step, renders and stores the manifests', async () => {
    const server = await start();
    const created = await request(server)
      .post('/api/gpu/services')
      .send({
        request: summariser,
        entityRef: 'component:default/summariser',
        requestKey: 'k1',
      })
      .expect(201);
    expect(created.body).toMatchObject({
      name: 'summariser',
      status: 'approved',
      mode: 'dry-run',
      placement: { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
      gpuEquivalents: 1,
      monthlyCost: '$587.50',
      annotations: { 'gpu.backstage.io/service-id': created.body.id },
    });
    expect(created.body.statusReason).toMatch(/dry-run/i);

    const again = await request(server)
      .post('/api/gpu/services')
      .send({ request: summariser, requestKey: 'k1' })
      .expect(200);
    expect(again.body.id).toBe(created.body.id);

    const detail = await request(server)
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    const kinds = detail.body.manifests.map((m: { kind: string }) => m.kind);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Deployment',
        'Service',
        'LocalQueue',
        'PodDisruptionBudget',
      ]),
    );

    const quota = await request(server)
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(quota.body.reservedGpuEquivalents['l4-ondemand']).toBe(1);

    const deleted = await request(server)
      .delete(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    expect(deleted.body.status).toBe('deleted');
    const after = await request(server)
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(after.body.reservedGpuEquivalents['l4-ondemand'] ?? 0).toBe(0);
    await request(server)
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);

    const audit = await request(server).get('/api/gpu/audit').expect(200);
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['service.create', 'reservation.release']),
    );
  });

  it('sends a request over quota to approval, and approving deploys it', async () => {
    const server = await start();
    await lowerMlPlatformL4Quota(server);
    const big = { ...summariser, name: 'big', replicas: 3 };
    const pending = await request(server)
      .post('/api/gpu/services')
      .send({ request: big })
      .expect(201);
    expect(pending.body.status).toBe('pending-approval');
    expect(pending.body.approval.reasons.length).toBeGreaterThan(0);

    const approvals = await request(server)
      .get('/api/gpu/approvals?state=pending')
      .expect(200);
    expect(approvals.body.items).toHaveLength(1);
    const decided = await request(server)
      .post(`/api/gpu/approvals/${approvals.body.items[0].id}/approve`)
      .set('Authorization', asUser('alice'))
      .send({ comment: 'launch week', allowOverQuota: true })
      .expect(200);
    expect(decided.body.service.status).toBe('approved');
  });

  it('refuses an approval that would over-allocate when the approver asks for allowOverQuota: false', async () => {
    const server = await start();
    await lowerMlPlatformL4Quota(server);
    const big = { ...summariser, name: 'big', replicas: 3 };
    await request(server)
      .post('/api/gpu/services')
      .send({ request: big })
      .expect(201);
    const approvals = await request(server)
      .get('/api/gpu/approvals?state=pending')
      .expect(200);
    expect(approvals.body.items[0]).toMatchObject({
      team: 'ml-platform',
      kind: 'create',
      requestedBy: mockCredentials.user().principal.userEntityRef,
    });
    const id = approvals.body.items[0].id;
    const refused = await request(server)
      .post(`/api/gpu/approvals/${id}/approve`)
      .set('Authorization', asUser('alice'))
      .send({ allowOverQuota: false })
      .expect(409);
    expect(refused.body.error.message).toMatch(/quota/i);
    const still = await request(server)
      .get('/api/gpu/approvals?state=pending')
      .expect(200);
    expect(still.body.items.map((a: { id: string }) => a.id)).toEqual([id]);
    await request(server)
      .post(`/api/gpu/approvals/${id}/approve`)
      .set('Authorization', asUser('alice'))
      .send({ allowOverQuota: 'yes' })
      .expect(400);
  });

  it('forbids users outside the team and callers without the permission, leaving nothing behind', async () => {
    const outsider = await start({ groups: ['search'] });
    const res = await request(outsider)
      .post('/api/gpu/services')
      .send({ request: summariser })
      .expect(403);
    expect(res.body.error.message).toMatch(
      /not allowed to request a service for team ml-platform/,
    );
    expect(
      (await request(outsider).get('/api/gpu/services').expect(200)).body.items,
    ).toEqual([]);

    const denied = await start({ allow: false });
    await request(denied)
      .post('/api/gpu/services')
      .send({ request: summariser })
      .expect(403);
    await request(denied)
      .put('/api/gpu/teams/ml-platform/quota')
      .send({ pools: {}, monthlyBudget: '1' })
      .expect(403);
    await request(denied)
      .post('/api/gpu/approvals/3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21/approve')
      .send({})
      .expect(403);
    expect(
      (await request(denied).get('/api/gpu/services').expect(200)).body.items,
    ).toEqual([]);
  });

  it('rejects bad input with 400 and a message naming the problem', async () => {
    const server = await start();
    const bad = await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariser, tier: 'mps' } })
      .expect(400);
    expect(bad.body.error.message).toMatch(/mps/);
    const quota = await request(server)
      .put('/api/gpu/teams/ml-platform/quota')
      .set('Authorization', asUser('alice'))
      .send({ pools: { nope: 1 }, monthlyBudget: '100' })
      .expect(400);
    expect(quota.body.error.message).toMatch(/nope/);
    await request(server)
      .patch('/api/gpu/services/unknown')
      .send({ replicas: 2 })
      .expect(400);
    await request(server)
      .patch('/api/gpu/services/3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21')
      .send({ replicas: 2 })
      .expect(404);
    const q = await request(server)
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(q.body.reservedGpuEquivalents).toEqual({});
  });

  it('previews a create with dryRun: renders and answers, stores and reserves nothing', async () => {
    const server = await start();
    const preview = await request(server)
      .post('/api/gpu/services')
      .send({
        request: summariser,
        entityRef: 'component:default/summariser',
        dryRun: true,
      })
      .expect(200);
    expect(preview.body).toMatchObject({
      id: 'dry-run',
      status: 'approved',
      namespace: 'ml-platform',
      gpuEquivalents: 1,
      annotations: { 'backstage.io/kubernetes-id': 'summariser' },
    });
    expect(
      preview.body.manifests.map((m: { kind: string }) => m.kind),
    ).toContain('Deployment');
    expect(
      (await request(server).get('/api/gpu/services').expect(200)).body.items,
    ).toEqual([]);
    const quota = await request(server)
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(quota.body.reservedGpuEquivalents).toEqual({});
    const bad = await request(server)
      .post('/api/gpu/services')
      .send({ request: { ...summariser, model: 'gpt-17' }, dryRun: true })
      .expect(400);
    expect(bad.body.error.message).toMatch(/gpt-17/);
  });

  it('records a service in GitOps mode on request and finds services by entity ref', async () => {
    const server = await start();
    const gitops = await request(server)
      .post('/api/gpu/services')
      .send({
        request: summariser,
        entityRef: 'component:default/summariser',
        mode: 'gitops',
      })
      .expect(201);
    expect(gitops.body).toMatchObject({ mode: 'gitops', status: 'approved' });
    expect(gitops.body.statusReason).toMatch(/GitOps/);
    await request(server)
      .post('/api/gpu/services')
      .send({
        request: { ...summariser, name: 'other' },
        entityRef: 'component:default/other',
      })
      .expect(201);
    await request(server)
      .post('/api/gpu/services')
      .send({ request: summariser, mode: 'apply' })
      .expect(400);

    const found = await request(server)
      .get('/api/gpu/services')
      .query({ entityRef: 'component:default/summariser' })
      .expect(200);
    expect(found.body.items.map((s: { id: string }) => s.id)).toEqual([
      gitops.body.id,
    ]);

    const deleted = await request(server)
      .delete(`/api/gpu/services/${gitops.body.id}`)
      .expect(200);
    expect(deleted.body.statusReason).toMatch(/GitOps repository/);
  });

  it('answers random bodies on every route with 2xx or 4xx, never 5xx', async () => {
    const server = await start();
    const routes: [string, string][] = [
      ['post', '/api/gpu/quote'],
      ['post', '/api/gpu/services'],
      ['patch', '/api/gpu/services/x'],
      ['put', '/api/gpu/teams/ml-platform/quota'],
      ['post', '/api/gpu/approvals/x/approve'],
      ['get', '/api/gpu/services'],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(
          fc.object(),
          fc.array(fc.jsonValue()),
          fc.record({
            request: fc.dictionary(
              fc.constantFrom(...Object.keys(summariser)),
              fc.jsonValue(),
            ),
          }),
          fc.dictionary(
            fc.constantFrom(...Object.keys(summariser)),
            fc.jsonValue(),
          ),
        ),
        async ([method, path], body) => {
          const res = await (request(server) as any)
            [method](path)
            .send(body as object);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });
});
