import request from 'supertest';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { settledService } from './__testUtils__/settledService';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';

jest.setTimeout(30_000);

const SSA = '?fieldManager=backstage-gpu&force=true';
const TEAM = 'ml-platform';
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;
const MODEL_CACHE = `/api/v1/namespaces/${TEAM}/persistentvolumeclaims/summariser-model-cache`;
/** Requests per Kubernetes call before the applier gives up (its default retry policy). */
const ATTEMPTS = 5;

const server = setupFakeClusterServer();

/** A backend whose reconciler gives a failed apply up at once (`gpu.apply.retryFor` of 1 ms) unless told otherwise. */
async function start(retryFor: Record<string, number> = { milliseconds: 1 }) {
  return startApplyClusterBackend(server, {
    groups: [TEAM],
    gpu: { apply: { retryFor } },
  });
}

/** The team's held GPU-equivalents on the summariser's pool. */
async function reserved(http: request.SuperTest<request.Test>) {
  const quota = await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200);
  return quota.body.reservedGpuEquivalents['l4-ondemand'] ?? 0;
}

async function auditOf(http: request.SuperTest<request.Test>, id: string) {
  const events = await http
    .get(`/api/gpu/audit?subjectId=${id}&limit=500`)
    .expect(200);
  return events.body.items as {
    action: string;
    before?: { status?: string };
    after?: { status?: string };
  }[];
}

/** Status transitions of a service, oldest first. */
function transitions(events: Awaited<ReturnType<typeof auditOf>>) {
  return events
    .filter(e => e.action === 'service.status')
    .reverse()
    .map(e => `${e.before?.status}->${e.after?.status}`);
}

describe('applying to a cluster that fails half-way', () => {
  it('leaves the service failed with the cluster message and its quota held, and a retry completes it', async () => {
    const { api, http } = await start();
    api.faults.push({
      method: 'PATCH',
      path: `${DEPLOYMENT}${SSA}`,
      failure: 500,
      times: ATTEMPTS,
      message: 'etcdserver: request timed out',
    });

    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    expect(created.body.status).toBe('applying');
    const failed = await settledService(http, id);
    expect(failed).toMatchObject({
      status: 'failed',
      reason: 'ApplyFailed',
      mode: 'apply',
      cluster: 'gpu-eu',
    });
    expect(failed.statusReason).toMatch(/etcdserver: request timed out/);
    expect(failed.statusReason).toMatch(/quota stays reserved/);

    // The model cache went in before the Deployment failed; the Deployment was tried ATTEMPTS times.
    const patches = api.requests
      .filter(r => r.method === 'PATCH')
      .map(r => r.path);
    expect(patches).toContain(`${MODEL_CACHE}${SSA}`);
    expect(patches.filter(p => p === `${DEPLOYMENT}${SSA}`)).toHaveLength(
      ATTEMPTS,
    );
    expect(api.live(MODEL_CACHE)).toBeDefined();
    expect(api.live(DEPLOYMENT)).toBeUndefined();

    // As the status says: the quota stays held.
    expect(await reserved(http)).toBe(1);
    const detail = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(detail.body).toMatchObject({ status: 'failed', gpuEquivalents: 1 });
    expect(transitions(await auditOf(http, id))).toEqual([
      'approved->applying',
      'applying->failed',
    ]);

    api.requests.length = 0;
    const retried = await http
      .post(`/api/gpu/services/${id}/retry`)
      .expect(200);
    // Applied again: the service starts, and is ready once its Deployment is available.
    expect(retried.body.status).toBe('applying');
    expect(await settledService(http, id)).toMatchObject({
      status: 'starting',
      reason: 'Applied',
      statusReason: 'Applied; waiting for the Deployment to become available',
      gpuEquivalents: 1,
    });
    const manifests = detail.body.manifests as {
      kind: string;
      metadata: { name: string; namespace?: string };
    }[];
    const applied = api.requests.filter(r => r.method === 'PATCH');
    // One server-side apply per stored manifest, in order, each with the apply content type; nothing cluster-wide
    // (the platform loop owns the Kueue objects the team's queue points at).
    expect(applied.map(r => r.body)).toEqual(manifests);
    expect(new Set(applied.map(r => r.path)).size).toBe(applied.length);
    expect(
      applied.every(r => r.contentType === 'application/apply-patch+yaml'),
    ).toBe(true);
    expect(
      api.requests.filter(r => !['GET', 'PATCH'].includes(r.method)),
    ).toEqual([]);
    expect(api.live(DEPLOYMENT)).toBeDefined();
    expect(await reserved(http)).toBe(1);
    expect(transitions(await auditOf(http, id))).toEqual([
      'approved->applying',
      'applying->failed',
      'failed->applying',
      'applying->starting',
    ]);

    // A starting service has nothing to retry.
    const again = await http.post(`/api/gpu/services/${id}/retry`).expect(409);
    expect(again.body.error.message).toMatch(/is starting; only a failed/);
  });

  it('fails with the cluster message when the API server restarts mid-apply, and a retry completes the apply', async () => {
    const { api, http } = await start();
    // The API server goes down after the model cache was applied: connections are refused for every attempt of the
    // Deployment, then it answers again.
    api.faults.push({
      method: 'PATCH',
      path: `${DEPLOYMENT}${SSA}`,
      failure: 'network',
      times: ATTEMPTS,
    });
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const failed = await settledService(http, created.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.statusReason).toMatch(
      new RegExp(
        `^Deployment ${TEAM}/summariser on cluster 'gpu-eu' failed after ${ATTEMPTS} attempts: .+ \\(quota stays reserved; retry the apply or delete the service\\)$`,
      ),
    );
    expect(api.live(MODEL_CACHE)).toBeDefined();
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(await reserved(http)).toBe(1);

    const retried = await http
      .post(`/api/gpu/services/${created.body.id}/retry`)
      .expect(200);
    expect(retried.body.status).toBe('applying');
    expect((await settledService(http, created.body.id)).status).toBe(
      'starting',
    );
    expect(api.live(DEPLOYMENT)).toBeDefined();
    expect(transitions(await auditOf(http, created.body.id))).toEqual([
      'approved->applying',
      'applying->failed',
      'failed->applying',
      'applying->starting',
    ]);
  });

  it('keeps a service whose teardown failed, with its quota, and a retry deletes it and releases once', async () => {
    const { api, http } = await start();
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    expect((await settledService(http, id)).status).toBe('starting');
    api.faults.push({
      method: 'DELETE',
      path: DEPLOYMENT,
      failure: 503,
      times: ATTEMPTS,
      message: 'apiserver is shutting down',
    });

    const deleting = await http.delete(`/api/gpu/services/${id}`).expect(200);
    expect(deleting.body.status).toBe('deleting');
    const failed = await settledService(http, id);
    expect(failed).toMatchObject({ status: 'failed', reason: 'TeardownFailed' });
    expect(failed.statusReason).toMatch(
      /Teardown failed: .*apiserver is shutting down/,
    );
    expect(failed.statusReason).toMatch(/quota stays reserved/);
    expect(await reserved(http)).toBe(1);
    expect(api.live(DEPLOYMENT)).toBeDefined();

    const retried = await http
      .post(`/api/gpu/services/${id}/retry`)
      .expect(200);
    expect(retried.body.status).toBe('deleting');
    expect((await settledService(http, id)).status).toBe('deleted');
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(api.live(MODEL_CACHE)).toBeUndefined();
    expect(await reserved(http)).toBe(0);

    // Deleting again changes nothing: the quota was released exactly once.
    await http.delete(`/api/gpu/services/${id}`).expect(200);
    expect(await reserved(http)).toBe(0);
    const events = await auditOf(http, id);
    expect(transitions(events)).toEqual([
      'approved->applying',
      'applying->starting',
      'starting->deleting',
      'deleting->failed',
      'failed->deleting',
      'deleting->deleted',
    ]);
    const reservationEvents = await http
      .get(`/api/gpu/audit?team=${TEAM}&limit=500`)
      .expect(200);
    const releases = (
      reservationEvents.body.items as {
        action: string;
        after?: { serviceId?: string };
      }[]
    ).filter(
      e => e.action === 'reservation.release' && e.after?.serviceId === id,
    );
    expect(releases).toHaveLength(1);
  });

  it('also completes a failed teardown with a second DELETE', async () => {
    const { api, http } = await start();
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    api.faults.push({
      method: 'DELETE',
      path: DEPLOYMENT,
      failure: 500,
      times: ATTEMPTS,
    });
    await settledService(http, created.body.id);
    await http.delete(`/api/gpu/services/${created.body.id}`).expect(200);
    expect((await settledService(http, created.body.id)).status).toBe(
      'failed',
    );
    expect(await reserved(http)).toBe(1);
    await http.delete(`/api/gpu/services/${created.body.id}`).expect(200);
    expect((await settledService(http, created.body.id)).status).toBe(
      'deleted',
    );
    expect(await reserved(http)).toBe(0);
  });

  it('keeps applying through a passing failure of the cluster, with no retry by hand', async () => {
    const { api, http } = await start({ minutes: 5 });
    // The API server answers 503 to every attempt of the first pass at the Deployment, then recovers.
    api.faults.push({
      method: 'PATCH',
      path: `${DEPLOYMENT}${SSA}`,
      failure: 503,
      times: ATTEMPTS,
      message: 'apiserver is shutting down',
    });
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    // The loop says why it waits, then applies again by itself.
    const settled = await settledService(http, id);
    expect(settled).toMatchObject({ status: 'starting', reason: 'Applied' });
    expect(api.live(DEPLOYMENT)).toBeDefined();
    expect(await reserved(http)).toBe(1);
    const events = await auditOf(http, id);
    expect(transitions(events)).toEqual([
      'approved->applying',
      'applying->applying',
      'applying->starting',
    ]);
    const waiting = events.find(
      e =>
        e.action === 'service.status' &&
        e.before?.status === 'applying' &&
        e.after?.status === 'applying',
    ) as { after?: { statusReason?: string } } | undefined;
    expect(waiting?.after?.statusReason).toMatch(
      /^The cluster could not take the apply yet \(.*apiserver is shutting down\); trying again in \d+ s$/,
    );
  });
});
