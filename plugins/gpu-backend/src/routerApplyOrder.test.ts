import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { settledService } from './__testUtils__/settledService';
import { setupFakeClusterServer } from './__testUtils__/setupFakeClusterServer';
import { startApplyClusterBackend } from './__testUtils__/startApplyClusterBackend';
import type { RecordedRequest } from './cluster/__testUtils__/fakeKubernetesApi';

jest.setTimeout(30_000);

const TEAM = 'ml-platform';
const KUEUE = '/apis/kueue.x-k8s.io/v1beta2';
const LOCAL_QUEUE = `${KUEUE}/namespaces/${TEAM}/localqueues/gpu-${TEAM}`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${TEAM}/deployments/summariser`;
const PLATFORM_KINDS = [
  'ResourceFlavor',
  'Cohort',
  'WorkloadPriorityClass',
  'ClusterQueue',
];
const MUTATING = ['POST', 'PUT', 'PATCH', 'DELETE'];

const server = setupFakeClusterServer();

interface SentObject {
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
  };
  spec?: {
    resourceGroups?: {
      flavors: {
        name: string;
        resources: { name: string; nominalQuota: number | string }[];
      }[];
    }[];
  };
}

function patches(requests: RecordedRequest[]) {
  return requests
    .filter(r => r.method === 'PATCH')
    .map(r => ({ path: r.path.split('?')[0], object: r.body as SentObject }));
}

/** Kinds in the order they were first sent. */
function kindOrder(sent: ReturnType<typeof patches>) {
  return [...new Set(sent.map(p => p.object.kind))];
}

describe('applying a service', () => {
  it("sends only the team's namespaced objects and the service's own; a quota change starts the platform loop, which delivers the cluster-wide Kueue objects", async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM, 'platform-team'],
    });
    // The governance page lowers the team's L4 quota from app-config's 4: the write starts the platform loop at once
    // (not at its next 10-minute period), which delivers the ClusterQueue with the stored quota.
    await http
      .put(`/api/gpu/teams/${TEAM}/quota`)
      .send({ pools: { 'l4-ondemand': 3 }, monthlyBudget: '60000' })
      .expect(200);
    const clusterQueue = `${KUEUE}/clusterqueues/gpu-${TEAM}`;
    const deadline = Date.now() + 20_000;
    while (!api.live(clusterQueue) && Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    const queue = api.live(clusterQueue) as unknown as SentObject;
    expect(queue).toBeDefined();
    const l4 = queue
      .spec!.resourceGroups!.flatMap(g => g.flavors)
      .find(f => f.name === 'l4-ondemand')!;
    expect(
      l4.resources.find(r => r.name === 'nvidia.com/gpu')?.nominalQuota,
    ).toBe('3');

    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    // The create records the desired state and answers; the reconciler applies it.
    expect(created.body).toMatchObject({
      status: 'applying',
      reason: 'Applying',
    });
    expect(await settledService(http, created.body.id)).toMatchObject({
      status: 'starting',
      reason: 'Applied',
      generation: 1,
      observedGeneration: 1,
    });

    // The service's objects went in apply order, one server-side apply each, none of them cluster-wide.
    const detail = await http
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    const stored = detail.body.manifests as SentObject[];
    expect(stored.map(m => m.kind)).toEqual([
      'LocalQueue',
      'PersistentVolumeClaim',
      'Service',
      'Deployment',
    ]);
    expect(stored.every(m => m.metadata.namespace === TEAM)).toBe(true);
    const own = patches(api.requests).filter(
      p =>
        p.object.metadata.labels?.['gpu.backstage.io/service-id'] ===
        created.body.id,
    );
    expect(own.map(p => p.object.kind)).toEqual([
      'PersistentVolumeClaim',
      'Service',
      'Deployment',
    ]);
    expect(new Set(own.map(p => p.path)).size).toBe(own.length);
    expect(api.live(LOCAL_QUEUE)).toBeDefined();
    expect(api.live(DEPLOYMENT)).toBeDefined();

    // Platform objects are not the service's: no service ownership label, not in its stored manifests.
    for (const { object } of patches(api.requests).filter(p =>
      PLATFORM_KINDS.includes(p.object.kind),
    )) {
      expect(object.metadata.labels).toMatchObject({
        'gpu.backstage.io/scope': 'platform',
      });
      expect(object.metadata.labels).not.toHaveProperty(
        'gpu.backstage.io/service-id',
      );
    }
  });

  it('re-applies the unchanged team objects with server-side applies only, and teardown keeps them', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM],
    });
    const first = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    expect((await settledService(http, first.body.id)).status).toBe(
      'starting',
    );
    const shared = patches(api.requests).filter(
      p => !p.object.metadata.labels?.['gpu.backstage.io/service-id'],
    );
    expect(kindOrder(shared)).toEqual(['LocalQueue']);
    const versions = () =>
      shared.map(p => api.live(p.path)?.metadata.resourceVersion);
    const before = versions();

    api.requests.length = 0;
    const second = await http
      .post('/api/gpu/services')
      .send({ request: { ...devSummariser, name: 'summariser-b' } })
      .expect(201);
    expect((await settledService(http, second.body.id)).status).toBe(
      'starting',
    );
    const mutating = api.requests.filter(r => MUTATING.includes(r.method));
    expect(mutating.every(r => r.method === 'PATCH')).toBe(true);
    expect(
      mutating.every(r => r.contentType === 'application/apply-patch+yaml'),
    ).toBe(true);
    expect(patches(api.requests).slice(0, shared.length)).toEqual(shared);
    expect(versions()).toEqual(before);

    await http.delete(`/api/gpu/services/${first.body.id}`).expect(200);
    expect((await settledService(http, first.body.id)).status).toBe(
      'deleted',
    );
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(api.live(LOCAL_QUEUE)).toBeDefined();
    for (const { path } of shared) {
      expect(api.live(path)).toBeDefined();
    }
    expect(
      api.live(`/apis/apps/v1/namespaces/${TEAM}/deployments/summariser-b`),
    ).toBeDefined();
  });

  it('applies the PodDisruptionBudget of a production service and deletes it with the service', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM],
    });
    const created = await http
      .post('/api/gpu/services')
      .send({ request: { ...devSummariser, environment: 'production' } })
      .expect(201);
    expect((await settledService(http, created.body.id)).status).toBe(
      'starting',
    );
    const detail = await http
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    const pdb = (detail.body.manifests as SentObject[]).find(
      m => m.kind === 'PodDisruptionBudget',
    );
    expect(pdb).toBeDefined();
    const path = `/apis/policy/v1/namespaces/${
      pdb!.metadata.namespace
    }/poddisruptionbudgets/${pdb!.metadata.name}`;
    expect(api.live(path)).toBeDefined();
    expect(kindOrder(patches(api.requests)).slice(-2)).toEqual([
      'Deployment',
      'PodDisruptionBudget',
    ]);

    const deleted = await http
      .delete(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    expect(deleted.body).toMatchObject({
      status: 'deleting',
      reason: 'Deleting',
    });
    expect(await settledService(http, created.body.id)).toMatchObject({
      status: 'deleted',
      reason: 'Deleted',
    });
    expect(
      api.requests.filter(r => r.method === 'DELETE').map(r => r.path),
    ).toContain(path);
    expect(api.live(path)).toBeUndefined();
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(api.live(LOCAL_QUEUE)).toBeDefined();
  });
});
