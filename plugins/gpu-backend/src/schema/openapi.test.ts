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
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
// OpenAPI 3.0 schema objects follow JSON Schema draft 4.
import Ajv from 'ajv-draft-04';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import {
  devSummariser,
  summariserRequest,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { setupFakeClusterServer } from '../__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from '../__testUtils__/startApplyClusterBackend';
import { simulatedControllers } from '../cluster/__testUtils__/simulatedControllers';
import { gpuPlugin } from '../plugin';
import { spec as generatedSpec } from './openapi';
import { settledService } from '../__testUtils__/settledService';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

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
          operationId: string;
          responses: Record<
            string,
            { content?: Record<string, { schema?: object }> }
          >;
        }
      >
    >
  >;
}

// A named dry-run cluster: services stay dry-run, and GET /platform/manifests has a cluster to export.
const config = mockServices.rootConfig.factory({
  data: {
    gpu: {
      ...demoPlatformConfig,
      clusters: [{ name: 'gpu-staging', mode: 'dry-run' }],
    },
  },
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

// Each case boots a backend and walks a whole lifecycle; on a busy machine that takes more than Jest's 5 s.
jest.setTimeout(60_000);

const UNKNOWN_ID = '3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21';

/**
 * One request per operation of the spec that passes request validation, so that what answers is the operation's
 * handler: a known error of its own (404 for an unknown id, 409, ...) or a success. An operation without a handler
 * falls through the router and gets the http router's empty 404.
 */
const REACHES_HANDLER: Record<
  string,
  (api: ReturnType<typeof request>) => request.Test
> = {
  getHealth: api => api.get('/api/gpu/health'),
  getPlatform: api => api.get('/api/gpu/platform'),
  getPlatformChecks: api => api.get('/api/gpu/platform/checks'),
  getPlatformManifests: api =>
    api.get('/api/gpu/platform/manifests?cluster=gpu-staging'),
  createQuote: api => api.post('/api/gpu/quote').send(summariserRequest),
  listServices: api => api.get('/api/gpu/services?limit=1'),
  createService: api =>
    api
      .post('/api/gpu/services')
      .send({ request: summariserRequest, dryRun: true }),
  getService: api => api.get(`/api/gpu/services/${UNKNOWN_ID}`),
  updateService: api =>
    api.patch(`/api/gpu/services/${UNKNOWN_ID}`).send({ replicas: 2 }),
  deleteService: api => api.delete(`/api/gpu/services/${UNKNOWN_ID}`),
  retryService: api => api.post(`/api/gpu/services/${UNKNOWN_ID}/retry`),
  confirmService: api => api.post(`/api/gpu/services/${UNKNOWN_ID}/confirm`),
  getTeamQuota: api => api.get('/api/gpu/teams/ml-platform/quota'),
  listTeamQuotas: api => api.get('/api/gpu/quotas'),
  listPoolSubscriptions: api => api.get('/api/gpu/pools/subscription'),
  putTeamQuota: api =>
    api
      .put('/api/gpu/teams/ml-platform/quota')
      .send({ pools: {}, monthlyBudget: '1' }),
  listApprovals: api => api.get('/api/gpu/approvals?state=pending'),
  approveRequest: api =>
    api.post(`/api/gpu/approvals/${UNKNOWN_ID}/approve`).send({}),
  rejectRequest: api =>
    api.post(`/api/gpu/approvals/${UNKNOWN_ID}/reject`).send({}),
  listClusterDrift: api => api.get('/api/gpu/clusters/drift'),
  listAuditEvents: api => api.get('/api/gpu/audit?limit=1'),
  getServiceUsage: api =>
    api.get(`/api/gpu/services/${UNKNOWN_ID}/usage?window=1h`),
  getServiceCost: api =>
    api.get(`/api/gpu/services/${UNKNOWN_ID}/cost?window=1h`),
  getTeamCost: api => api.get('/api/gpu/teams/ml-platform/cost?window=1h'),
  getOverview: api => api.get('/api/gpu/overview?window=1h'),
  listOverviewServices: api =>
    api.get('/api/gpu/overview/services?window=1h&leaderboard=waste&limit=5'),
  // A team member may not export every team's costs: the handler's 403 (its 200 is CSV, checked in costExport.test).
  getCostExport: api =>
    api.get('/api/gpu/cost/export?firstDay=2026-11-01&lastDay=2026-11-02'),
  submitBatchJob: api =>
    api.post('/api/gpu/batch-jobs').send({
      request: {
        name: 'ocr',
        team: 'search',
        environment: 'dev',
        pool: 'spot-l4',
        image: 'ocr:1',
        completions: 2,
        parallelism: 2,
        gpusPerPod: 1,
        backoffLimit: 0,
      },
      dryRun: true,
    }),
  getBatchJob: api => api.get('/api/gpu/batch-jobs/search/ocr'),
};

describe('OpenAPI description of /api/gpu', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const api = (await SwaggerParser.validate(SPEC)) as unknown as Spec;
    expect(api.openapi).toMatch(/^3\.0\./);
  });

  it('is the spec of the generated router (yarn backstage-repo-tools package schema openapi generate --server)', () => {
    // CI checks the same with `backstage-repo-tools repo schema openapi validate`; this says it sooner.
    expect(generatedSpec).toEqual(parseYaml(readFileSync(SPEC, 'utf8')));
  });

  it('is served at /api/gpu/openapi.json to signed-in callers, with the paths under the plugin', async () => {
    const { server } = await startTestBackend({
      features: [databaseClosedOnShutdown, gpuPlugin, config],
    });
    const served = await request(server).get('/api/gpu/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body.openapi).toBe(generatedSpec.openapi);
    expect(Object.keys(served.body.paths).sort()).toEqual(
      Object.keys(generatedSpec.paths)
        .map(path => `/api/gpu${path}`)
        .sort(),
    );
    expect(served.body.paths['/api/gpu/services'].get.operationId).toBe(
      'listServices',
    );
    // Like every route but /health (and like the catalog's and the scaffolder's specs): credentials needed.
    await request(server)
      .get('/api/gpu/openapi.json')
      .set('Authorization', mockCredentials.none.header())
      .expect(401);
  });

  it('has a handler for every operation', async () => {
    const spec = (await SwaggerParser.parse(SPEC)) as unknown as Spec;
    const operationIds = Object.values(spec.paths).flatMap(item =>
      METHODS.flatMap(method =>
        item?.[method] ? [item[method]!.operationId] : [],
      ),
    );
    expect(Object.keys(REACHES_HANDLER).sort()).toEqual(
      [...operationIds].sort(),
    );
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        config,
        memberOfMlPlatform,
      ],
    });
    // What a request that no handler takes gets: not JSON.
    const unhandled = await request(server).get('/api/gpu/no-such-route');
    expect(unhandled.status).toBe(404);
    expect(unhandled.type).not.toBe('application/json');
    for (const [operationId, call] of Object.entries(REACHES_HANDLER)) {
      const res = await call(request(server));
      // A handler answers JSON: a result, or one of its errors (Backstage's error body).
      expect({ operationId, json: res.type }).toEqual({
        operationId,
        json: 'application/json',
      });
      expect({ operationId, validated: res.status !== 400 }).toEqual({
        operationId,
        validated: true,
      });
    }
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

    it('for quotes of an autoscaled request under either gpu.admission.autoscaledReplicas', async () => {
      const autoscaled = {
        ...summariserRequest,
        tier: 'dedicated',
        pool: 'l4-ondemand',
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 3,
          targetQueueDepth: 2,
          engine: 'keda',
        },
      };
      for (const autoscaledReplicas of ['maximum', 'minimum-plus-burst']) {
        const backend = await startTestBackend({
          features: [
            databaseClosedOnShutdown,
            gpuPlugin,
            mockServices.rootConfig.factory({
              data: {
                gpu: {
                  ...demoPlatformConfig,
                  admission: { autoscaledReplicas },
                },
              },
            }),
            memberOfMlPlatform,
          ],
        });
        const quote = await request(backend.server)
          .post('/api/gpu/quote')
          .send(autoscaled);
        expect(quote.status).toBe(200);
        expectConforms(quote, 'post', '/quote');
        expect(quote.body.options[0].scaling.basis).toBe(autoscaledReplicas);
        await backend.stop();
      }
    });

    it('for the service lifecycle, quotes, quotas, approvals, audit and errors', async () => {
      const { server } = await startTestBackend({
        features: [
          databaseClosedOnShutdown,
          gpuPlugin,
          config,
          memberOfMlPlatform,
        ],
      });
      const api = request(server);

      expectConforms(await api.get('/api/gpu/health'), 'get', '/health');
      expectConforms(await api.get('/api/gpu/platform'), 'get', '/platform');
      const quote = await api.post('/api/gpu/quote').send(summariserRequest);
      expect(quote.status).toBe(200);
      expectConforms(quote, 'post', '/quote');
      expect(quote.body.options[0].poolCapacity).toBeDefined();
      const summary = await api
        .post('/api/gpu/quote?detail=summary')
        .send(summariserRequest);
      expect(summary.status).toBe(200);
      expectConforms(summary, 'post', '/quote');
      expect(summary.body).toMatchObject({
        detail: 'summary',
        optionCount: quote.body.options.length,
        recommended: {
          tier: quote.body.recommended.slice.tier,
          pool: quote.body.recommended.slice.pool,
        },
      });
      expect(summary.body.choices[0].monthlyMicros).toBe(
        quote.body.options[0].cost.monthly,
      );
      expect(summary.text.length).toBeLessThan(quote.text.length / 2);
      const measured = await api.post('/api/gpu/quote').send({
        ...summariserRequest,
        tier: 'dedicated',
        pool: 'l4-ondemand',
        expectedTokensPerSecond: 600,
        measuredTokensPerSecond: 1500,
      });
      expect(measured.status).toBe(200);
      expectConforms(measured, 'post', '/quote');
      const [l4] = measured.body.options;
      expect(l4.throughput).toMatchObject({
        capacityBasis: 'measured',
        capacityTokensPerSecond: 1500,
        utilisation: 0.4,
        costFactor: 2.5,
      });
      expect(l4.cost).toEqual(
        expect.objectContaining({
          costPerRequest: expect.any(Number),
          costPerMillionInputTokens: expect.any(Number),
          costPerMillionOutputTokens: expect.any(Number),
        }),
      );
      expect(quote.body.options[0].throughput.capacityBasis).toBe('estimated');
      // Eight full-length sequences at once: a dedicated L4 (five) is listed as unavailable, with why.
      const sequences = await api
        .post('/api/gpu/quote')
        .send({ ...summariserRequest, concurrentSequences: 8 });
      expect(sequences.status).toBe(200);
      expectConforms(sequences, 'post', '/quote');
      expect(
        sequences.body.unavailable.find(
          (u: { slice: { pool: string } }) => u.slice.pool === 'l4-ondemand',
        ).reason,
      ).toMatch(/holds 5 sequences of 8192 tokens at once/);
      const tooMany = await api
        .post('/api/gpu/quote')
        .send({ ...summariserRequest, concurrentSequences: 65 });
      expect(tooMany.status).toBe(400);
      expectConforms(tooMany, 'post', '/quote');
      expect(tooMany.body.error.message).toMatch(
        /concurrentSequences 65 is above concurrency 64/,
      );
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
      expectConforms(await api.get('/api/gpu/quotas'), 'get', '/quotas');
      const subscription = await api.get('/api/gpu/pools/subscription');
      expect(subscription.status).toBe(200);
      expectConforms(subscription, 'get', '/pools/subscription');
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
        await api.get('/api/gpu/platform/manifests?cluster=gpu-staging'),
        'get',
        '/platform/manifests',
      );
      expectConforms(
        await api.get('/api/gpu/platform/manifests?cluster=gpu-us'),
        'get',
        '/platform/manifests',
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
      expect(created.body.status).toBe('applying');
      expectConforms(created, 'post', '/services');
      expect((await settledService(http, created.body.id)).status).toBe(
        'starting',
      );
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
