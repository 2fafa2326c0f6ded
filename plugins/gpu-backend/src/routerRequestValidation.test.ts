/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "expectInvalid"] }] */
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserRequest } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { gpuPlugin } from './plugin';
import { asUser, demoUserInfo } from './__testUtils__/demoUsers';
import { databaseClosedOnShutdown } from './testUtils/databaseClosedOnShutdown';

// Each test starts a backend with the permission framework: seconds on a loaded machine.
jest.setTimeout(30_000);

const UNKNOWN_ID = '3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21';

/**
 * Requests that break src/schema/openapi.yaml are refused by the generated router's validator before any handler
 * runs: 400, Backstage's error body (InputError, through the backend's error middleware) and a message naming the
 * field.
 */
describe('request validation against the OpenAPI spec', () => {
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const { server } = await startTestBackend({
      features: [
        databaseClosedOnShutdown,
        gpuPlugin,
        mockServices.rootConfig.factory({ data: { gpu: demoPlatformConfig } }),
        demoUserInfo({ mock: ['ml-platform'], alice: ['platform-team'] }),
      ],
    });
    http = request(server);
  });

  /** Expects a 400 InputError whose message matches. */
  async function expectInvalid(res: request.Test, message: RegExp) {
    const answer = await res;
    expect({ status: answer.status, error: answer.body.error }).toEqual({
      status: 400,
      error: expect.objectContaining({
        name: 'InputError',
        message: expect.stringMatching(message),
      }),
    });
    expect(answer.body.response).toEqual({ statusCode: 400 });
  }

  it('refuses a body field of the wrong type', async () => {
    await expectInvalid(
      http.patch(`/api/gpu/services/${UNKNOWN_ID}`).send({ replicas: 'two' }),
      /request\/body\/replicas must be integer/,
    );
    await expectInvalid(
      http
        .post(`/api/gpu/approvals/${UNKNOWN_ID}/approve`)
        .set('Authorization', asUser('alice'))
        .send({ allowOverQuota: 'yes' }),
      /request\/body\/allowOverQuota must be boolean/,
    );
    await expectInvalid(
      http
        .post('/api/gpu/services')
        .send({ request: { ...summariserRequest, replicas: 65 } }),
      /request\/body\/request\/replicas must be <= 64/,
    );
    await expectInvalid(
      http
        .put('/api/gpu/teams/ml-platform/quota')
        .send({ pools: { 'l4-ondemand': -1 }, monthlyBudget: '10' }),
      /request\/body\/pools\/l4-ondemand must be >= 0/,
    );
  });

  it('refuses unknown body fields and missing required ones', async () => {
    // The validator names the object with the unknown field (ajv's additionalProperties message), not the field.
    await expectInvalid(
      http
        .post('/api/gpu/services')
        .send({ request: summariserRequest, colour: 'red' }),
      /^request\/body must NOT have additional properties$/,
    );
    await expectInvalid(
      http.post('/api/gpu/quote').send({ ...summariserRequest, colour: 'red' }),
      /^request\/body must NOT have additional properties$/,
    );
    await expectInvalid(
      http
        .post('/api/gpu/services')
        .send({ request: { ...summariserRequest, colour: 'red' } }),
      /^request\/body\/request must NOT have additional properties$/,
    );
    await expectInvalid(
      http.post('/api/gpu/services').send({ entityRef: 'component:x' }),
      /request\/body must have required property 'request'/,
    );
    await expectInvalid(
      http.patch(`/api/gpu/services/${UNKNOWN_ID}`).send({}),
      /request\/body must NOT have fewer than 1 properties/,
    );
  });

  it('refuses unknown query parameters', async () => {
    await expectInvalid(
      http.get('/api/gpu/services?colour=red'),
      /Unknown query parameter 'colour'/,
    );
    await expectInvalid(
      http.get('/api/gpu/audit?teams=ml-platform'),
      /Unknown query parameter 'teams'/,
    );
  });

  it('refuses a page size out of range, and other bad query values', async () => {
    await expectInvalid(
      http.get('/api/gpu/services?limit=201'),
      /request\/query\/limit must be <= 200/,
    );
    await expectInvalid(
      http.get('/api/gpu/approvals?limit=0'),
      /request\/query\/limit must be >= 1/,
    );
    await expectInvalid(
      http.get('/api/gpu/audit?limit=501'),
      /request\/query\/limit must be <= 500/,
    );
    await expectInvalid(
      http.get('/api/gpu/services?limit=ten'),
      /request\/query\/limit must be integer/,
    );
    await expectInvalid(
      http.get('/api/gpu/services?status=nope'),
      /request\/query\/status must be equal to one of the allowed values/,
    );
    await expectInvalid(
      http.get('/api/gpu/audit?cursor=abc'),
      /request\/query\/cursor must match pattern/,
    );
    await expectInvalid(
      http.get('/api/gpu/approvals?orderBy=cost'),
      /request\/query\/orderBy must be equal to one of the allowed values: requestedAt, team, service, monthlyCost/,
    );
    await expectInvalid(
      http.get('/api/gpu/approvals?orderBy=team&order=up'),
      /request\/query\/order must be equal to one of the allowed values: asc, desc/,
    );
    await expectInvalid(
      http.get('/api/gpu/audit?order=oldest'),
      /request\/query\/order must be equal to one of the allowed values: asc, desc/,
    );
    await expectInvalid(
      http.get('/api/gpu/overview?window=1h&window=6h'),
      /request\/query\/window must be string/,
    );
    await expectInvalid(
      http.get('/api/gpu/overview?cluster='),
      /Empty value found for query parameter 'cluster'/,
    );
    // A well-formed name of no configured cluster: refused by the route (no cluster is configured here).
    await expectInvalid(
      http.get('/api/gpu/overview?cluster=prod-eu'),
      /^Unknown cluster 'prod-eu': no cluster is configured \(gpu.clusters\)$/,
    );
  });

  it('refuses ids that are not UUIDs and team names that are not DNS labels', async () => {
    await expectInvalid(
      http.get('/api/gpu/services/unknown'),
      /request\/params\/id must match format "uuid"/,
    );
    await expectInvalid(
      http.post('/api/gpu/approvals/42/reject').send({}),
      /request\/params\/id must match format "uuid"/,
    );
    await expectInvalid(
      http.get('/api/gpu/teams/Not_A_Team/quota'),
      /request\/params\/team must match pattern/,
    );
  });

  it('refuses a body that is not JSON', async () => {
    await expectInvalid(
      http
        .post('/api/gpu/quote')
        .set('Content-Type', 'application/json')
        .send('{"name": '),
      /JSON/,
    );
  });

  it('lets valid requests through, query values typed', async () => {
    const page = await http.get('/api/gpu/services?limit=1').expect(200);
    expect(page.body).toEqual({ items: [] });
    await http.get('/api/gpu/audit?limit=500&since=2025-01-01').expect(200);
    // What the spec cannot say stays the handlers': a time that is not one, an entity ref of another kind.
    await expectInvalid(
      http.get('/api/gpu/audit?since=yesterday'),
      /since must be an ISO 8601 time/,
    );
    await expectInvalid(
      http.post('/api/gpu/services').send({
        request: summariserRequest,
        entityRef: 'group:default/ml-platform',
      }),
      /[Cc]omponent/,
    );
  });
});
