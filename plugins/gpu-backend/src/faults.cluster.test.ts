import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { AdmissionGate, startAdmissionGate } from './testUtils/admissionGate';
import {
  openWatches,
  untilWatchesReturn,
} from './__testUtils__/apiServerWatches';
import { clusterComponent } from './__testUtils__/clusterComponent';
import {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';

jest.setTimeout(240_000);

const TEAM = 'cluster-faults';
const NAMESPACE = 'cluster-faults';

const chat: ServiceRequest = smallServiceRequest({
  name: 'chat',
  team: TEAM,
  namespace: NAMESPACE,
  tier: 'dedicated',
  pool: 'spot-l4',
});

type Http = Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];

describeOnLocalCluster('faults on a real API server', kubeconfig => {
  const clients = localClusterClients(kubeconfig);
  let http: Http;
  let stop: () => Promise<void>;
  let gate: AdmissionGate;

  async function reserved(): Promise<number> {
    const quota = await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200);
    return quota.body.reservedGpuEquivalents['spot-l4'] ?? 0;
  }

  async function deploymentNames(): Promise<string[]> {
    const list = await clients.apps.listNamespacedDeployment({
      namespace: NAMESPACE,
    });
    return list.items
      .filter(d => !d.metadata?.deletionTimestamp)
      .map(d => d.metadata!.name!);
  }

  beforeAll(async () => {
    await createNamespaces(clients, [NAMESPACE]);
    await clients.apps.deleteCollectionNamespacedDeployment({
      namespace: NAMESPACE,
    });
    const started = await startLocalClusterBackend({
      kubeconfig,
      groups: [TEAM],
      teams: [
        {
          name: TEAM,
          namespaces: [NAMESPACE],
          gpuQuota: { 'spot-l4': 2 },
          monthlyBudget: '100000',
        },
      ],
      gpu: { statusRefresh: { frequency: { seconds: 1 } } },
    });
    http = started.http;
    stop = () => started.backend.stop();
  });

  beforeEach(async () => {
    gate = await startAdmissionGate({
      clients,
      kubeconfig,
      namespace: NAMESPACE,
    });
  });

  afterEach(async () => {
    await gate.remove();
  });

  afterAll(async () => {
    await stop?.();
    await clients.apps
      .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
      .catch(() => undefined);
  });

  it('a DELETE that arrives while the apply is still running wins: nothing runs afterwards and the quota is released once', async () => {
    const creating = http
      .post('/api/gpu/services')
      .send({ request: { ...chat, name: 'raced' } })
      .then(res => res);
    // The apply has sent the PVC and the Service; the Deployment waits in admission.
    await eventually('the Deployment held in admission', async () =>
      gate.held() > 0 ? true : undefined,
    );
    const { body: list } = await http.get('/api/gpu/services').expect(200);
    const service = list.items.find(
      (s: { name: string; team: string }) =>
        s.name === 'raced' && s.team === TEAM,
    );
    expect(service.status).toBe('applying');
    expect(await reserved()).toBe(1);

    // The DELETE records the deletion and answers; the reconciler deletes once the apply in flight has ended.
    const deleted = await http
      .delete(`/api/gpu/services/${service.id}`)
      .expect(200);
    expect(deleted.body.status).toBe('deleting');

    // The held PATCH now creates the Deployment; the apply sees it lost and removes it again.
    gate.open();
    const created = await creating;
    expect([200, 201, 409]).toContain(created.status);
    await eventually('no Deployment left', async () =>
      (await deploymentNames()).includes('raced') ? undefined : true,
    );
    await eventually('the service deleted', async () => {
      const res = await http.get(`/api/gpu/services/${service.id}`).expect(200);
      return res.body.status === 'deleted' ? true : undefined;
    });
    expect(await reserved()).toBe(0);
    // And it stays so: the status refresh does not bring it back.
    await new Promise(r => setTimeout(r, 3000));
    expect(
      (await http.get(`/api/gpu/services/${service.id}`).expect(200)).body
        .status,
    ).toBe('deleted');
    expect(await deploymentNames()).not.toContain('raced');
  });

  it('an API server restarted in the middle of an apply ends consistent: the apply completes or fails with the cluster’s message, and a retry completes it', async () => {
    // The create answers at once; the reconciler's apply is what the restart interrupts.
    const created = await http
      .post('/api/gpu/services')
      .send({ request: { ...chat, name: 'restarted' } })
      .expect(201);
    expect(created.body.status).toBe('applying');
    await eventually('the Deployment held in admission', async () =>
      gate.held() > 0 ? true : undefined,
    );
    // The API server goes down with the request in flight and comes back.
    const watchesBefore = await openWatches(kubeconfig);
    const restart = clusterComponent(kubeconfig, 'restart', 'kube-apiserver');
    await new Promise(r => setTimeout(r, 500));
    gate.open();
    await restart;
    const id: string = created.body.id;
    const settled = () =>
      eventually('the apply ended', async () => {
        const res = await http.get(`/api/gpu/services/${id}`).expect(200);
        return res.body.status === 'applying' ? undefined : res.body;
      });
    let service = await settled();
    // Failing is allowed (the retries may end before the API server is back), but only with a reason code.
    expect(
      service.status === 'failed' && service.reason !== 'ApplyFailed',
    ).toBe(false);
    if (service.status === 'failed') {
      await http.post(`/api/gpu/services/${id}/retry`).expect(200);
      service = await settled();
    }
    expect(['starting', 'ready']).toContain(service.status);
    await eventually('the service ready', async () => {
      const res = await http.get(`/api/gpu/services/${id}`).expect(200);
      if (res.body.status === 'ready') return true;
      throw new Error(
        `${res.body.status} (${res.body.reason}): ${res.body.statusReason}`,
      );
    });
    // One Deployment, one admitted pod, the quota held once.
    expect(
      (await deploymentNames()).filter(name => name === 'restarted'),
    ).toHaveLength(1);
    const pods = await podsOf(clients, NAMESPACE, 'restarted');
    expect(pods).toHaveLength(1);
    const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
    expect(hasCondition(workloads[0]?.status?.conditions, 'Admitted')).toBe(
      true,
    );
    expect(await reserved()).toBe(1);
    await http.delete(`/api/gpu/services/${id}`).expect(200);
    await eventually('the quota released', async () =>
      (await reserved()) === 0 ? true : undefined,
    );
    await untilWatchesReturn(kubeconfig, watchesBefore);
  });
});
