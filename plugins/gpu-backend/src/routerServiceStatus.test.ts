import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import request from 'supertest';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { settledService } from './__testUtils__/settledService';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';
import { simulatedControllers } from './cluster/__testUtils__/simulatedControllers';
import {
  APPLY_RESUME_TASK_ID,
  STATUS_REFRESH_TASK_ID,
} from './services/scheduleStatusTasks';

jest.setTimeout(30_000);

const TEAM = 'ml-platform';
const SSA = '?fieldManager=backstage-gpu&force=true';
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;
const QUOTA_MESSAGE =
  "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4-ondemand, " +
  'previously considered podsets requests (4) + current podset request (1) > maximum capacity (4)';

const server = setupFakeClusterServer();

async function start(gpu: Record<string, unknown> = {}) {
  const scheduler = mockServices.scheduler();
  const scheduleTask = jest.spyOn(scheduler, 'scheduleTask');
  const backend = await startApplyClusterBackend(server, {
    groups: [TEAM],
    gpu,
    features: [
      createServiceFactory({
        service: coreServices.scheduler,
        deps: {},
        factory: () => scheduler,
      }),
    ],
  });
  const cluster = simulatedControllers(backend.api, {
    namespace: TEAM,
    name: 'summariser',
  });
  return { ...backend, scheduler, scheduleTask, cluster };
}

async function reserved(http: request.SuperTest<request.Test>) {
  const quota = await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200);
  return quota.body.reservedGpuEquivalents['l4-ondemand'] ?? 0;
}

/** Status transitions of a service, oldest first, with the actor of each. */
async function transitions(http: request.SuperTest<request.Test>, id: string) {
  const events = await http
    .get(`/api/gpu/audit?subjectId=${id}&limit=500`)
    .expect(200);
  return (
    events.body.items as {
      action: string;
      actor: string;
      before?: { status?: string };
      after?: { status?: string };
    }[]
  )
    .filter(e => e.action === 'service.status')
    .reverse()
    .map(e => `${e.before?.status}->${e.after?.status}`);
}

describe('service status from the cluster', () => {
  it('is starting after the apply, waits for Kueue with its message, is ready once the Deployment is available, and starting again when it is lost', async () => {
    const { http, cluster, scheduler } = await start();
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({
      status: 'applying',
      reason: 'Applying',
    });
    expect(await settledService(http, id)).toMatchObject({
      status: 'starting',
      reason: 'Applied',
      statusReason: 'Applied; waiting for the Deployment to become available',
    });
    // Starting holds the quota like ready.
    expect(await reserved(http)).toBe(1);

    // Nothing rolled out yet: the detail says so, in the cluster block.
    const fresh = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(fresh.body.status).toBe('starting');
    expect(fresh.body.reason).toBe('RolloutInProgress');
    expect(fresh.body.statusReason).toBe(
      'Waiting for the Deployment: the Deployment controller has not yet observed generation 1',
    );
    expect(fresh.body.clusterStatus).toMatchObject({
      cluster: 'gpu-eu',
      observedAt: expect.any(String),
      deployment: { name: 'summariser', exists: true, available: false },
      admission: { state: 'none', workloads: [] },
      pods: [],
      warnings: [],
    });

    // The pod is created gated; Kueue cannot fit it in the team's ClusterQueue.
    cluster.replicaSet();
    cluster.deploymentStatus({ updated: 1, available: 0 });
    const gated = cluster.pod(0, 'gated');
    cluster.workload(gated, { admitted: false, message: QUOTA_MESSAGE });
    const waiting = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(waiting.body).toMatchObject({
      status: 'starting',
      reason: 'KueuePending',
      statusReason: `Waiting for Kueue admission: ${QUOTA_MESSAGE}`,
      clusterStatus: {
        admission: {
          state: 'pending',
          pending: 1,
          reason: 'Pending',
          message: QUOTA_MESSAGE,
        },
        pods: [
          {
            name: gated.metadata.name,
            phase: 'Pending',
            schedulingGates: ['kueue.x-k8s.io/admission'],
          },
        ],
      },
    });

    // Kueue admits it, the scheduler binds it, it becomes ready, the Deployment available: the scheduled refresh
    // makes the service ready.
    cluster.removePod(gated);
    const running = cluster.pod(0, 'running');
    cluster.workload(running, {
      admitted: true,
      clusterQueue: `gpu-${TEAM}`,
      flavor: 'l4-ondemand',
    });
    cluster.deploymentStatus({ updated: 1, ready: 1, available: 1 });
    await scheduler.triggerTask(STATUS_REFRESH_TASK_ID);
    const ready = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.reason).toBe('Available');
    expect(ready.body.statusReason).toBeUndefined();
    expect(ready.body.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'Available',
          status: 'True',
          reason: 'Available',
          observedGeneration: 1,
        }),
      ]),
    );
    expect(ready.body.clusterStatus).toMatchObject({
      deployment: { available: true, availableReplicas: 1 },
      admission: {
        state: 'admitted',
        clusterQueue: `gpu-${TEAM}`,
        flavors: { 'nvidia.com/gpu': 'l4-ondemand' },
      },
      pods: [
        {
          name: running.metadata.name,
          node: 'kwok-gpu-l4-ondemand-0',
          ready: true,
        },
      ],
    });

    // The container starts crash-looping: availability is lost, the service is starting again, and says why.
    cluster.removePod(running);
    const crashing = cluster.pod(0, 'crashing');
    cluster.workload(crashing, {
      admitted: true,
      clusterQueue: `gpu-${TEAM}`,
      flavor: 'l4-ondemand',
    });
    cluster.warning(crashing, {
      reason: 'BackOff',
      message: `Back-off restarting failed container vllm in pod ${crashing.metadata.name}`,
      count: 5,
    });
    cluster.deploymentStatus({ updated: 1, ready: 0, available: 0 });
    await scheduler.triggerTask(STATUS_REFRESH_TASK_ID);
    const lost = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(lost.body.status).toBe('starting');
    expect(lost.body.reason).toBe('CrashLoopBackOff');
    expect(lost.body.statusReason).toMatch(
      new RegExp(
        `^Availability lost: Pod ${crashing.metadata.name}: CrashLoopBackOff: back-off`,
      ),
    );
    expect(lost.body.clusterStatus.warnings).toEqual([
      expect.objectContaining({
        object: { kind: 'Pod', name: crashing.metadata.name },
        reason: 'BackOff',
        count: 5,
      }),
    ]);
    expect(await reserved(http)).toBe(1);

    // Reading again changes nothing: the refresh writes only when status or reason change.
    await http.get(`/api/gpu/services/${id}`).expect(200);
    await scheduler.triggerTask(STATUS_REFRESH_TASK_ID);
    expect(await transitions(http, id)).toEqual([
      'approved->applying',
      'applying->starting',
      'starting->starting',
      'starting->starting',
      'starting->ready',
      'ready->starting',
    ]);
  });

  it('answers ClusterUnreachable with an error in the cluster block when the cluster cannot be read, never a 5xx', async () => {
    const { http, api } = await start({
      statusRefresh: { timeout: { milliseconds: 300 } },
    });
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    await settledService(http, created.body.id);

    // The API server is gone (connection refused).
    api.faults.push({
      method: 'GET',
      path: DEPLOYMENT,
      failure: 'network',
      times: 10,
    });
    const down = await http
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    // Whether it runs is unknown: the service says its cluster cannot be reached.
    expect(down.body).toMatchObject({
      status: 'starting',
      reason: 'ClusterUnreachable',
      statusReason: expect.stringMatching(/^Cluster gpu-eu cannot be reached/),
      clusterStatus: {
        cluster: 'gpu-eu',
        observedAt: expect.any(String),
        error: expect.stringMatching(
          /^The cluster 'gpu-eu' could not be read: .+$/,
        ),
      },
    });
    expect(down.body.clusterStatus).not.toHaveProperty('deployment');
    api.faults.length = 0;

    // The API server accepts the connection but does not answer: the read gives up after the configured timeout.
    const hold = api.hold('GET', DEPLOYMENT);
    const started = Date.now();
    const slow = await http
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(slow.body.clusterStatus.error).toMatch(/300 ms/);
    expect(slow.body.status).toBe('starting');
    hold.release();
  });

  it('has no cluster block for a GitOps service', async () => {
    const { http, api } = await start();
    const gitops = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser, mode: 'gitops' })
      .expect(201);
    const detail = await http
      .get(`/api/gpu/services/${gitops.body.id}`)
      .expect(200);
    expect(detail.body.status).toBe('approved');
    expect(detail.body).not.toHaveProperty('clusterStatus');
    expect(api.requests).toEqual([]);
  });

  it('schedules the refresh and the resume of interrupted applies for one replica at a time, at the configured frequency', async () => {
    const { scheduleTask } = await start();
    for (const id of [STATUS_REFRESH_TASK_ID, APPLY_RESUME_TASK_ID]) {
      expect(scheduleTask).toHaveBeenCalledWith(
        expect.objectContaining({
          id,
          scope: 'global',
          frequency: { seconds: 15 },
          initialDelay: expect.anything(),
        }),
      );
    }
    const configured = await start({ statusRefresh: { frequency: 'PT1M' } });
    expect(configured.scheduleTask).toHaveBeenCalledWith(
      expect.objectContaining({
        id: STATUS_REFRESH_TASK_ID,
        frequency: { minutes: 1 },
      }),
    );
  });
});

describe('a DELETE while the apply is in flight', () => {
  it('wins: the reconciler finishes the apply, then deletes everything it applied, and only then releases the quota', async () => {
    const { http, api } = await start();
    const hold = api.hold('PATCH', `${DEPLOYMENT}${SSA}`);
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    expect(created.body.status).toBe('applying');
    await hold.reached;

    // The DELETE records the deletion and answers; the objects are deleted once the apply in flight has ended.
    const deleting = await http.delete(`/api/gpu/services/${id}`).expect(200);
    expect(deleting.body).toMatchObject({
      status: 'deleting',
      reason: 'Deleting',
    });
    // Like a finalizer: the quota stays held until the cluster confirms the objects are gone.
    expect(await reserved(http)).toBe(1);

    hold.release();
    expect(await settledService(http, id)).toMatchObject({
      status: 'deleted',
      reason: 'Deleted',
      statusReason: 'Deleted from the cluster',
    });

    // Nothing of the service is left running without quota, and it was not brought back.
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    const sentDeployment = api.requests.some(
      r => r.method === 'PATCH' && r.path === `${DEPLOYMENT}${SSA}`,
    );
    expect(sentDeployment).toBe(true);
    expect(
      api.requests.filter(r => r.method === 'DELETE').map(r => r.path),
    ).toContain(DEPLOYMENT);
    const detail = await http.get(`/api/gpu/services/${id}`).expect(200);
    expect(detail.body.status).toBe('deleted');
    expect(detail.body).not.toHaveProperty('clusterStatus');
    expect(await reserved(http)).toBe(0);
    expect(await transitions(http, id)).toEqual([
      'approved->applying',
      'applying->deleting',
      'deleting->deleted',
    ]);
  });

  it('keeps the quota and says why when the cluster refuses the deletion, and a DELETE completes it', async () => {
    const { http, api } = await start();
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    await settledService(http, id);

    // The cluster refuses to delete the Deployment, as it does for a permission the backend lacks: waiting will not
    // help, so the teardown fails at once.
    api.faults.push({
      method: 'DELETE',
      path: DEPLOYMENT,
      failure: 403,
      times: 1,
      message: 'deployments.apps "summariser" is forbidden',
    });
    await http.delete(`/api/gpu/services/${id}`).expect(200);
    const failed = await settledService(http, id);
    expect(failed).toMatchObject({
      status: 'failed',
      reason: 'TeardownFailed',
      statusReason: expect.stringMatching(
        /^Teardown failed: .*is forbidden.*quota stays reserved; retry the delete\)$/,
      ),
    });
    expect(api.live(DEPLOYMENT)).toBeDefined();
    expect(await reserved(http)).toBe(1);

    const again = await http.delete(`/api/gpu/services/${id}`).expect(200);
    expect(again.body.status).toBe('deleting');
    expect(await settledService(http, id)).toMatchObject({
      status: 'deleted',
      statusReason: 'Deleted from the cluster',
    });
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(await reserved(http)).toBe(0);
  });

  it('keeps deleting through answers the cluster gives while it is busy, and releases the quota once it is gone', async () => {
    const { http, api } = await start();
    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    const id = created.body.id;
    await settledService(http, id);

    // A passing refusal: the reconciler tries again with a pause, quota held meanwhile, with no second DELETE.
    api.faults.push({
      method: 'DELETE',
      path: DEPLOYMENT,
      failure: 503,
      times: 3,
      message: 'apiserver is shutting down',
    });
    await http.delete(`/api/gpu/services/${id}`).expect(200);
    expect(await settledService(http, id)).toMatchObject({
      status: 'deleted',
      reason: 'Deleted',
      statusReason: 'Deleted from the cluster',
    });
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(await reserved(http)).toBe(0);
  });
});
