import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
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

describe('applying a service to a fresh cluster', () => {
  it('sends the platform objects its queue needs, then the team queue, then the workload', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM, 'platform-team'],
    });
    // The governance page lowered the team's L4 quota from app-config's 4; the reconciler has not run yet.
    await http
      .put(`/api/gpu/teams/${TEAM}/quota`)
      .send({ pools: { 'l4-ondemand': 3 }, monthlyBudget: '60000' })
      .expect(200);
    expect(api.requests).toEqual([]);

    const created = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    expect(created.body.status).toBe('starting');

    const sent = patches(api.requests);
    expect(kindOrder(sent)).toEqual([
      ...PLATFORM_KINDS,
      'LocalQueue',
      'PersistentVolumeClaim',
      'Service',
      'Deployment',
    ]);
    const index = (kind: string) => sent.findIndex(p => p.object.kind === kind);
    expect(index('ClusterQueue')).toBeLessThan(index('LocalQueue'));
    expect(index('LocalQueue')).toBeLessThan(index('Deployment'));
    expect(sent.map(p => p.path)).toContain(LOCAL_QUEUE);

    // Only the team's ClusterQueue, with the stored quota, and exactly the flavors it lists.
    const queues = sent.filter(p => p.object.kind === 'ClusterQueue');
    expect(queues).toHaveLength(1);
    const queue = queues[0].object;
    expect(queue.metadata.labels?.['gpu.backstage.io/team']).toBe(TEAM);
    const flavors = queue.spec!.resourceGroups!.flatMap(g => g.flavors);
    const l4 = flavors.find(f => f.name === 'l4-ondemand')!;
    expect(
      l4.resources.find(r => r.name === 'nvidia.com/gpu')?.nominalQuota,
    ).toBe('3');
    expect(
      sent
        .filter(p => p.object.kind === 'ResourceFlavor')
        .map(p => p.object.metadata.name)
        .sort(),
    ).toEqual(flavors.map(f => f.name).sort());
    expect(api.live(queues[0].path)).toBeDefined();

    // Platform objects are not the service's: no service ownership label, not in its stored manifests.
    for (const { object } of sent.filter(p =>
      PLATFORM_KINDS.includes(p.object.kind),
    )) {
      expect(object.metadata.labels).toMatchObject({
        'gpu.backstage.io/scope': 'platform',
      });
      expect(object.metadata.labels).not.toHaveProperty(
        'gpu.backstage.io/service-id',
      );
    }
    const detail = await http
      .get(`/api/gpu/services/${created.body.id}`)
      .expect(200);
    const stored = (detail.body.manifests as SentObject[]).map(m => m.kind);
    expect(stored).toContain('LocalQueue');
    expect(stored).toContain('Deployment');
    expect(stored.filter(k => PLATFORM_KINDS.includes(k))).toEqual([]);
  });

  it('re-applies the unchanged platform and team objects with server-side applies only, and teardown keeps them', async () => {
    const { api, http } = await startApplyClusterBackend(server, {
      groups: [TEAM],
    });
    const first = await http
      .post('/api/gpu/services')
      .send({ request: devSummariser })
      .expect(201);
    expect(first.body.status).toBe('starting');
    const shared = patches(api.requests).filter(
      p => !p.object.metadata.labels?.['gpu.backstage.io/service-id'],
    );
    expect(kindOrder(shared)).toEqual([...PLATFORM_KINDS, 'LocalQueue']);
    const versions = () =>
      shared.map(p => api.live(p.path)?.metadata.resourceVersion);
    const before = versions();

    api.requests.length = 0;
    const second = await http
      .post('/api/gpu/services')
      .send({ request: { ...devSummariser, name: 'summariser-b' } })
      .expect(201);
    expect(second.body.status).toBe('starting');
    const mutating = api.requests.filter(r => MUTATING.includes(r.method));
    expect(mutating.every(r => r.method === 'PATCH')).toBe(true);
    expect(
      mutating.every(r => r.contentType === 'application/apply-patch+yaml'),
    ).toBe(true);
    expect(patches(api.requests).slice(0, shared.length)).toEqual(shared);
    expect(versions()).toEqual(before);

    await http.delete(`/api/gpu/services/${first.body.id}`).expect(200);
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
    expect(created.body.status).toBe('starting');
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
    expect(deleted.body).toMatchObject({ status: 'deleted' });
    expect(
      api.requests.filter(r => r.method === 'DELETE').map(r => r.path),
    ).toContain(path);
    expect(api.live(path)).toBeUndefined();
    expect(api.live(DEPLOYMENT)).toBeUndefined();
    expect(api.live(LOCAL_QUEUE)).toBeDefined();
  });
});
