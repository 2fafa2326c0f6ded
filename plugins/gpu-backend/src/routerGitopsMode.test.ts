import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@internal/backstage-plugin-gpu-common';
import { setupServer } from 'msw/node';
import request from 'supertest';
import { summariserRequest } from './__testUtils__/summariserRequest';
import { fakeKubernetesApi } from './cluster/__testUtils__/fakeKubernetesApi';
import { gpuPlugin } from './plugin';

const BASE = 'https://k8s.test:6443';

const server = setupServer();
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (req, print) => {
      if (!['127.0.0.1', 'localhost'].includes(new URL(req.url).hostname)) {
        print.error();
      }
    },
  }),
);
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('a service recorded in GitOps mode on a cluster Backstage applies to', () => {
  it('is rendered and stored but never applied, and its teardown touches nothing in the cluster', async () => {
    const api = fakeKubernetesApi(BASE);
    server.use(...api.handlers);
    const { server: backend } = await startTestBackend({
      features: [
        gpuPlugin,
        mockServices.rootConfig.factory({
          data: {
            gpu: { ...demoPlatformConfig, clusters: [{ name: 'gpu-eu', mode: 'apply' }] },
            kubernetes: {
              clusterLocatorMethods: [
                {
                  type: 'config',
                  clusters: [
                    {
                      name: 'gpu-eu',
                      url: BASE,
                      authProvider: 'serviceAccount',
                      serviceAccountToken: 'sa-token',
                    },
                  ],
                },
              ],
            },
          },
        }),
        createServiceFactory({
          service: coreServices.userInfo,
          deps: {},
          factory: () =>
            mockServices.userInfo({
              userEntityRef: mockCredentials.user().principal.userEntityRef,
              ownershipEntityRefs: ['group:default/ml-platform'],
            }),
        }),
      ],
    });
    const http = request(backend);
    const body = { ...summariserRequest, environment: 'dev', tier: 'dedicated', pool: 'l4-ondemand' };

    const gitops = await http
      .post('/api/gpu/services')
      .send({ request: body, mode: 'gitops' })
      .expect(201);
    expect(gitops.body).toMatchObject({ status: 'approved', mode: 'gitops', cluster: 'gpu-eu' });
    expect(gitops.body.statusReason).toMatch(/GitOps/);
    const detail = await http.get(`/api/gpu/services/${gitops.body.id}`).expect(200);
    expect(detail.body.manifests.map((m: { kind: string }) => m.kind)).toContain('Deployment');
    expect(api.requests).toEqual([]);
    const quota = await http.get('/api/gpu/teams/ml-platform/quota').expect(200);
    expect(quota.body.reservedGpuEquivalents['l4-ondemand']).toBe(1);

    const deleted = await http.delete(`/api/gpu/services/${gitops.body.id}`).expect(200);
    expect(deleted.body).toMatchObject({ status: 'deleted' });
    expect(deleted.body.statusReason).toMatch(/GitOps repository/);
    expect(api.requests).toEqual([]);
    const after = await http.get('/api/gpu/teams/ml-platform/quota').expect(200);
    expect(after.body.reservedGpuEquivalents['l4-ondemand'] ?? 0).toBe(0);

    // The same request without the mode is applied: the fake cluster sees the server-side applies.
    const applied = await http.post('/api/gpu/services').send({ request: body }).expect(201);
    expect({ ...applied.body, request: undefined }).toMatchObject({ status: 'ready', mode: 'apply' });
    expect(api.requests.filter(r => r.method === 'PATCH').length).toBeGreaterThan(0);
  });
});
