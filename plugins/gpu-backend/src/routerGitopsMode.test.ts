import SwaggerParser from '@apidevtools/swagger-parser';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
// OpenAPI 3.0 schema objects follow JSON Schema draft 4.
import Ajv from 'ajv-draft-04';
import { resolve } from 'node:path';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';
import { settledService } from './__testUtils__/settledService';
import { RecordedRequest } from './cluster/__testUtils__/fakeKubernetesApi';

jest.setTimeout(30_000);

const server = setupFakeClusterServer();

/**
 * The fake cluster's requests that would change a service's objects (their paths name it). The backend's loops start
 * 5-15 s after it (status reads, the platform's own objects), within a slow run of these tests: what they do is not a
 * GitOps service applied or torn down.
 */
const writesTo = (api: { requests: RecordedRequest[] }, name: string) =>
  api.requests.filter(r => r.method !== 'GET' && r.path.includes(`/${name}`));

describe('a service recorded in GitOps mode on a cluster Backstage applies to', () => {
  it('is rendered and stored but never applied, and its teardown touches nothing in the cluster', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: ['ml-platform'],
    });

    const gitops = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser, mode: 'gitops' })
      .expect(201);
    expect(gitops.body).toMatchObject({
      status: 'approved',
      mode: 'gitops',
      cluster: 'gpu-eu',
    });
    expect(gitops.body.statusReason).toMatch(/GitOps/);
    const detail = await http
      .get(`/api/gpu/services/${gitops.body.id}`)
      .expect(200);
    expect(
      detail.body.manifests.map((m: { kind: string }) => m.kind),
    ).toContain('Deployment');
    expect(writesTo(api, gitops.body.name)).toEqual([]);
    const quota = await http
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(quota.body.reservedGpuEquivalents['l4-ondemand']).toBe(1);

    const deleted = await http
      .delete(`/api/gpu/services/${gitops.body.id}`)
      .expect(200);
    expect(deleted.body).toMatchObject({ status: 'deleted' });
    expect(deleted.body.statusReason).toMatch(/GitOps repository/);
    expect(writesTo(api, gitops.body.name)).toEqual([]);
    const after = await http
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(after.body.reservedGpuEquivalents['l4-ondemand'] ?? 0).toBe(0);

    // The same request without the mode is applied: the fake cluster sees the server-side applies, and the service
    // starts (it is ready once its Deployment is available).
    const applied = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    expect({ ...applied.body, request: undefined }).toMatchObject({
      status: 'applying',
      mode: 'apply',
    });
    expect((await settledService(http, applied.body.id)).status).toBe(
      'starting',
    );
    // What the GitOps service never had: its objects' server-side applies, named as writesTo finds them.
    expect(
      writesTo(api, applied.body.name).filter(r => r.method === 'PATCH').length,
    ).toBeGreaterThan(0);
  });

  it('PATCH with dryRun answers what the change would record, manifests included, and writes nothing', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: ['ml-platform'],
    });
    const gitops = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser, mode: 'gitops' })
      .expect(201);
    const preview = await http
      .patch(`/api/gpu/services/${gitops.body.id}`)
      .send({ replicas: 2, dryRun: true })
      .expect(200);
    expect(preview.body).toMatchObject({
      id: gitops.body.id,
      status: 'approved',
      reason: 'DryRun',
      request: { replicas: 2 },
      gpuEquivalents: 2,
      generation: 2,
    });
    const deployment = preview.body.manifests.find(
      (m: { kind: string }) => m.kind === 'Deployment',
    );
    expect(deployment.spec.replicas).toBe(2);
    const read = await http
      .get(`/api/gpu/services/${gitops.body.id}`)
      .expect(200);
    expect(read.body).toMatchObject({
      request: { replicas: 1 },
      generation: 1,
      gpuEquivalents: 1,
    });
    const quota = await http
      .get('/api/gpu/teams/ml-platform/quota')
      .expect(200);
    expect(quota.body.reservedGpuEquivalents['l4-ondemand']).toBe(1);

    // provisional is for GitOps services only; a GitOps one refuses a second change while the first is pending.
    const pending = await http
      .patch(`/api/gpu/services/${gitops.body.id}`)
      .send({ replicas: 2, provisional: true })
      .expect(200);
    expect(pending.body.request.replicas).toBe(2);
    const refused = await http
      .patch(`/api/gpu/services/${gitops.body.id}`)
      .send({ replicas: 1 })
      .expect(409);
    expect(refused.body.error.message).toMatch(
      /has a change \(generation 2\) waiting for the template run that made it to record its pull request/,
    );
    expect(writesTo(api, gitops.body.name)).toEqual([]);
  });

  it("shows a pending change in the service's view (the PATCH answer, GET and the list) as the API documents it", async () => {
    const { http } = await startApplyClusterBackend(server, {
      groups: ['ml-platform'],
    });
    const spec = (await SwaggerParser.dereference(
      resolve(__dirname, 'schema', 'openapi.yaml'),
    )) as unknown as {
      components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addFormat('date-time', value => !Number.isNaN(Date.parse(value)));
    const conforms = (schema: string, body: unknown) => {
      const validate = ajv.compile(spec.components.schemas[schema]);
      expect({
        schema,
        valid: validate(body),
        errors: validate.errors,
      }).toEqual({ schema, valid: true, errors: null });
    };
    const gitops = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser, mode: 'gitops' })
      .expect(201);
    expect(gitops.body.pendingChange).toBeUndefined();
    const id = gitops.body.id;

    const changed = await http
      .patch(`/api/gpu/services/${id}`)
      .send({ replicas: 2, provisional: true })
      .expect(200);
    const pendingChange = {
      generation: 2,
      confirmBy: expect.any(String),
      createdBy: expect.stringContaining('user:'),
      createdAt: expect.any(String),
      previous: {
        tier: gitops.body.placement.tier,
        pool: gitops.body.placement.pool,
        cluster: 'gpu-eu',
        model: devSummariser.model,
        replicas: 1,
      },
      proposed: {
        tier: gitops.body.placement.tier,
        pool: gitops.body.placement.pool,
        cluster: 'gpu-eu',
        model: devSummariser.model,
        replicas: 2,
      },
    };
    expect(changed.body.pendingChange).toEqual(pendingChange);
    conforms('GpuServiceView', changed.body);

    const read = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(read.body.pendingChange).toEqual(pendingChange);
    conforms('GpuServiceDetail', read.body);

    const listed = await http
      .get('/api/gpu/services?team=ml-platform')
      .expect(200);
    const item = listed.body.items.find((s: { id: string }) => s.id === id);
    expect(item.pendingChange).toEqual(pendingChange);
    conforms('GpuServiceView', item);
  });
});
