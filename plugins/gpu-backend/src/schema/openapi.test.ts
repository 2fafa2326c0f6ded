import SwaggerParser from '@apidevtools/swagger-parser';
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
// OpenAPI 3.0 schema objects follow JSON Schema draft 4.
import Ajv from 'ajv-draft-04';
import type { Router } from 'express';
import { resolve } from 'node:path';
import request from 'supertest';
import {
  devSummariser,
  summariserRequest,
} from '@internal/backstage-plugin-gpu-common/testUtils';
import { setupFakeClusterServer } from '../__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from '../__testUtils__/startApplyClusterBackend';
import { simulatedControllers } from '../cluster/__testUtils__/simulatedControllers';
import { gpuPlugin } from '../plugin';
import { routerOperations } from './routerOperations';

const SPEC = resolve(__dirname, 'openapi.yaml');
const fakeCluster = setupFakeClusterServer();
const METHODS = [
  'get',
  'put',
  'post',
  'delete',
  'patch',
  'head',
  'options',
  'trace',
] as const;

type Method = (typeof METHODS)[number];
/** The parts of an OpenAPI 3.0 document these tests read. */
interface Spec {
  openapi: string;
  paths: Record<
    string,
    Partial<
      Record<
        Method,
        {
          responses: Record<
            string,
            { content?: Record<string, { schema?: object }> }
          >;
        }
      >
    >
  >;
}

const config = mockServices.rootConfig.factory({
  data: { gpu: demoPlatformConfig },
});
const memberOfMlPlatform = createServiceFactory({
  service: coreServices.userInfo,
  deps: {},
  factory: () =>
    mockServices.userInfo({
      userEntityRef: mockCredentials.user().principal.userEntityRef,
      ownershipEntityRefs: ['group:default/ml-platform'],
    }),
});

/**
 * Every operation of the routers the plugin hands to its http router service, as wired by plugin.ts, without the
 * framework's own (`/.well-known/backstage/...` of the permissions registry, `/.backstage/...`).
 */
async function pluginOperations() {
  const handlers: Router[] = [];
  await startTestBackend({
    features: [
      gpuPlugin,
      config,
      createServiceFactory({
        service: coreServices.httpRouter,
        deps: { plugin: coreServices.pluginMetadata },
        factory: ({ plugin }) => ({
          use: handler => {
            if (plugin.getId() === 'gpu') handlers.push(handler as Router);
          },
          addAuthPolicy: () => {},
        }),
      }),
    ],
  });
  return handlers
    .flatMap(routerOperations)
    .filter(o => !o.path.startsWith('/.'))
    .sort(
      (a, b) =>
        a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
    );
}

function specOperations(spec: Spec) {
  return Object.entries(spec.paths)
    .flatMap(([path, item]) =>
      METHODS.filter(method => item?.[method]).map(method => ({
        method,
        path,
      })),
    )
    .sort(
      (a, b) =>
        a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
    );
}

describe('OpenAPI description of /api/gpu', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const api = (await SwaggerParser.validate(SPEC)) as unknown as Spec;
    expect(api.openapi).toMatch(/^3\.0\./);
  });

  it('describes exactly the routes the router registers', async () => {
    const spec = (await SwaggerParser.parse(SPEC)) as unknown as Spec;
    expect(await pluginOperations()).toEqual(specOperations(spec));
  });

  describe('matches real responses', () => {
    let spec: Spec;
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addFormat(
      'date-time',
      value => !Number.isNaN(Date.parse(value)) && value.includes('T'),
    );

    beforeAll(async () => {
      spec = (await SwaggerParser.dereference(SPEC)) as unknown as Spec;
    });

    /** Validates a response against the spec's schema for its operation and status. */
    function expectConforms(
      res: request.Response,
      method: Method,
      path: string,
    ) {
      const operation = spec.paths[path]?.[method];
      expect(operation).toBeDefined();
      const response = operation!.responses[String(res.status)];
      if (!response) {
        throw new Error(
          `${method.toUpperCase()} ${path} answered ${
            res.status
          }, which the spec does not list`,
        );
      }
      const schema = response.content?.['application/json']?.schema;
      expect(schema).toBeDefined();
      const validate = ajv.compile(schema as object);
      if (!validate(res.body)) {
        throw new Error(
          `${method.toUpperCase()} ${path} ${
            res.status
          } does not match the spec: ${JSON.stringify(
            validate.errors,
            null,
            1,
          )}`,
        );
      }
    }

    it('for the service lifecycle, quotas, approvals, audit and errors', async () => {
      const { server } = await startTestBackend({
        features: [gpuPlugin, config, memberOfMlPlatform],
      });
      const api = request(server);

      expectConforms(await api.get('/api/gpu/health'), 'get', '/health');
      expectConforms(await api.get('/api/gpu/platform'), 'get', '/platform');
      const quote = await api.post('/api/gpu/quote').send(summariserRequest);
      expect(quote.status).toBe(200);
      expectConforms(quote, 'post', '/quote');
      expectConforms(
        await api
          .post('/api/gpu/quote')
          .send({ ...summariserRequest, model: 'gpt-17' }),
        'post',
        '/quote',
      );

      const body = {
        request: summariserRequest,
        entityRef: 'component:default/summariser',
        requestKey: 'k',
      };
      const created = await api.post('/api/gpu/services').send(body);
      expect(created.status).toBe(201);
      expectConforms(created, 'post', '/services');
      const again = await api.post('/api/gpu/services').send(body);
      expect(again.status).toBe(200);
      expectConforms(again, 'post', '/services');
      const id = created.body.id;
      const preview = await api.post('/api/gpu/services').send({
        request: { ...summariserRequest, name: 'preview' },
        dryRun: true,
      });
      expect(preview.body.id).toBe('dry-run');
      expectConforms(preview, 'post', '/services');

      expectConforms(
        await api.get('/api/gpu/services?team=ml-platform'),
        'get',
        '/services',
      );
      expectConforms(
        await api.get('/api/gpu/services?status=nope'),
        'get',
        '/services',
      );
      const detail = await api.get(`/api/gpu/services/${id}`);
      expect(detail.body.manifests.length).toBeGreaterThan(0);
      expectConforms(detail, 'get', '/services/{id}');
      expectConforms(
        await api.get('/api/gpu/services/unknown'),
        'get',
        '/services/{id}',
      );
      expectConforms(
        await api.patch(`/api/gpu/services/${id}`).send({ replicas: 2 }),
        'patch',
        '/services/{id}',
      );

      expectConforms(
        await api.get('/api/gpu/teams/ml-platform/quota'),
        'get',
        '/teams/{team}/quota',
      );
      expectConforms(
        await api
          .put('/api/gpu/teams/search/quota')
          .send({ pools: { 'l4-ondemand': 1 }, monthlyBudget: '10' }),
        'put',
        '/teams/{team}/quota',
      );

      const big = await api
        .post('/api/gpu/services')
        // Over ml-platform's quota (none on spot-l4), within the pool's physical capacity (6 GPUs).
        .send({
          request: {
            ...summariserRequest,
            name: 'big',
            tier: 'dedicated',
            pool: 'spot-l4',
            replicas: 6,
          },
        });
      expect(big.body.status).toBe('pending-approval');
      expectConforms(big, 'post', '/services');
      const approvals = await api.get('/api/gpu/approvals?state=pending');
      expectConforms(approvals, 'get', '/approvals');
      const rejected = await api
        .post(`/api/gpu/approvals/${approvals.body.items[0].id}/reject`)
        // Another user than the requester: nobody decides their own request.
        .set('Authorization', mockCredentials.user.header('user:default/alice'))
        .send({ comment: 'too big', allowOverQuota: false });
      expect(rejected.status).toBe(200);
      expectConforms(rejected, 'post', '/approvals/{id}/reject');

      expectConforms(
        await api.delete(`/api/gpu/services/${id}`),
        'delete',
        '/services/{id}',
      );
      expectConforms(
        await api.get('/api/gpu/clusters/drift'),
        'get',
        '/clusters/drift',
      );
      const audit = await api.get('/api/gpu/audit?limit=5');
      expect(audit.body.nextCursor).toBeDefined();
      expectConforms(audit, 'get', '/audit');
    });

    it('for a service in apply mode, with its cluster status, and when the cluster cannot be read', async () => {
      const { api: cluster, http } = await startApplyClusterBackend(
        fakeCluster,
        { groups: ['ml-platform'] },
      );
      const created = await http
        .post('/api/gpu/services')
        .send({ request: devSummariser });
      expect(created.body.status).toBe('starting');
      expectConforms(created, 'post', '/services');
      const path = `/api/gpu/services/${created.body.id}`;

      const controllers = simulatedControllers(cluster, {
        namespace: 'ml-platform',
        name: 'summariser',
      });
      controllers.replicaSet();
      const running = controllers.pod(0, 'running');
      controllers.workload(running, {
        admitted: true,
        clusterQueue: 'gpu-ml-platform',
        flavor: 'l4-ondemand',
      });
      const gated = controllers.pod(1, 'gated');
      controllers.workload(gated, {
        admitted: false,
        message:
          "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed",
      });
      controllers.warning(controllers.pod(2, 'crashing'), {
        reason: 'BackOff',
        message: 'Back-off restarting failed container vllm',
        count: 3,
      });
      controllers.warning(gated, {
        reason: 'FailedScheduling',
        message: '0/4 nodes are available: 4 Insufficient nvidia.com/gpu.',
        eventsApi: true,
        count: 2,
      });
      controllers.deploymentStatus({ updated: 3, ready: 1, available: 1 });
      const detail = await http.get(path);
      expect(detail.body.clusterStatus).toMatchObject({
        deployment: { exists: true },
        admission: { state: 'pending', admitted: 1, pending: 1 },
      });
      expect(detail.body.clusterStatus.pods).toHaveLength(3);
      expect(detail.body.clusterStatus.warnings).toHaveLength(2);
      expectConforms(detail, 'get', '/services/{id}');

      cluster.faults.push({
        method: 'GET',
        path: '/apis/apps/v1/namespaces/ml-platform/deployments/summariser',
        failure: 503,
        times: 10,
        message: 'apiserver is shutting down',
      });
      const unreadable = await http.get(path);
      expect(unreadable.status).toBe(200);
      expect(unreadable.body.clusterStatus.error).toMatch(
        /apiserver is shutting down/,
      );
      expectConforms(unreadable, 'get', '/services/{id}');
    });
  });
});
