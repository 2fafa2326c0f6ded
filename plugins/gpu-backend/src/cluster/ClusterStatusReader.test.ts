import {
  demoPlatformConfig,
  parsePlatform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { devSummariser } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { renderServiceManifests } from '@gpu-platform/backstage-plugin-gpu-node';
import { setupServer } from 'msw/node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { fakeKubernetesApi } from './__testUtils__/fakeKubernetesApi';
import {
  SIMULATED_NOW,
  simulatedControllers,
} from './__testUtils__/simulatedControllers';
import { ClusterStatusReader } from './ClusterStatusReader';
import { KubernetesApplier } from './KubernetesApplier';
import { KubernetesClientFactory } from './KubernetesClientFactory';
import { KubernetesApplyError } from './errors';
import { refOf } from './objectRef';
import { LiveIndexedObjects, LiveObjects, ObjectRef } from './types';
import { subjectOfEvent } from './warningEvents';

const BASE = 'https://status.test:6443';
const NAMESPACE = 'ml-platform';
const SERVICE_ID = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
const OTHER_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const QUOTA_MESSAGE =
  "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4-ondemand, " +
  'previously considered podsets requests (0) + current podset request (1) > maximum capacity (0)';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const platform = parsePlatform(demoPlatformConfig);

async function setup(
  options: {
    pageSize?: number;
    notServed?: string[];
    live?: LiveObjects;
    indexed?: LiveIndexedObjects;
  } = {},
) {
  const api = fakeKubernetesApi(BASE, { notServed: options.notServed });
  server.use(...api.handlers);
  const client = new KubernetesClientFactory({
    requestTimeoutMs: 2_000,
  }).forCluster('gpu-eu', {
    type: 'serviceAccount',
    url: BASE,
    serviceAccountToken: 'token',
  });
  const applier = new KubernetesApplier({ cluster: 'gpu-eu', client });
  const render = (request: ServiceRequest, serviceId: string) =>
    renderServiceManifests(
      platform,
      { ...request, namespace: NAMESPACE },
      { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
      { serviceId },
    );
  const apply = async (request: ServiceRequest, serviceId: string) =>
    applier.apply(render(request, serviceId));
  await apply(devSummariser, SERVICE_ID);
  const reader = new ClusterStatusReader({
    cluster: 'gpu-eu',
    client,
    kueueApiVersion: 'kueue.x-k8s.io/v1beta2',
    pageSize: options.pageSize,
    live: options.live,
    indexed: options.indexed,
    now: () => new Date(SIMULATED_NOW),
  });
  const read = (others?: ObjectRef[]) =>
    reader.read({
      serviceId: SERVICE_ID,
      namespace: NAMESPACE,
      deployment: 'summariser',
      others,
    });
  const cluster = simulatedControllers(api, {
    namespace: NAMESPACE,
    name: 'summariser',
  });
  return { api, apply, read, cluster, render };
}

/** One pod of the service admitted by Kueue, scheduled and ready, and its Deployment available. */
function readyPod(cluster: ReturnType<typeof simulatedControllers>) {
  const replicaSet = cluster.replicaSet();
  const pod = cluster.pod(0, 'running', { node: 'kwok-gpu-l4-ondemand-2' });
  const workload = cluster.workload(pod, {
    admitted: true,
    clusterQueue: 'gpu-ml-platform',
    flavor: 'l4-ondemand',
  });
  cluster.deploymentStatus({ updated: 1, ready: 1, available: 1 });
  return { replicaSet, pod, workload };
}

describe('ClusterStatusReader', () => {
  it('reports a freshly applied service: Deployment not rolled out, no pods, nothing admitted', async () => {
    const { read } = await setup();
    const status = await read();
    expect(status).toEqual({
      cluster: 'gpu-eu',
      observedAt: '2026-12-01T10:00:00.000Z',
      deployment: expect.objectContaining({
        name: 'summariser',
        namespace: NAMESPACE,
        exists: true,
        replicas: 1,
        updatedReplicas: 0,
        availableReplicas: 0,
        available: false,
        currentReplicas: 0,
        readyReplicas: 0,
        // A real API server creates it with an empty status; the controller has not written one yet.
        reason: 'the Deployment controller has not yet observed generation 1',
        conditions: [],
      }),
      admission: {
        state: 'none',
        admitted: 0,
        pending: 0,
        flavors: {},
        workloads: [],
      },
      pods: [],
      warnings: [],
    });
  });

  it("reports a pod gated until Kueue admits it, with Kueue's reason and message", async () => {
    const { read, cluster } = await setup();
    cluster.replicaSet();
    cluster.deploymentStatus({ updated: 1, available: 0 });
    const pod = cluster.pod(0, 'gated');
    cluster.workload(pod, { admitted: false, message: QUOTA_MESSAGE });

    const status = await read();
    expect(status.pods).toEqual([
      {
        name: pod.metadata.name,
        phase: 'Pending',
        ready: false,
        restarts: 0,
        schedulingGates: ['kueue.x-k8s.io/admission'],
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ]);
    expect(status.admission).toEqual({
      state: 'pending',
      admitted: 0,
      pending: 1,
      flavors: {},
      reason: 'Pending',
      message: QUOTA_MESSAGE,
      workloads: [
        {
          name: expect.stringMatching(/^pod-summariser-/),
          pod: pod.metadata.name,
          state: 'pending',
          reason: 'Pending',
          message: QUOTA_MESSAGE,
          podSets: [],
        },
      ],
    });
    // maxUnavailable 1 of 1 replica: the Available condition is True without any pod; the reader does not trust it.
    expect(status.deployment).toMatchObject({
      available: false,
      reason: '0 of 1 updated replicas available',
      conditions: expect.arrayContaining([
        expect.objectContaining({
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
        }),
      ]),
    });
  });

  it('reports an admitted, scheduled and ready pod with its ClusterQueue and flavors, and the Deployment available', async () => {
    const { read, cluster } = await setup();
    const { pod } = readyPod(cluster);

    const status = await read();
    expect(status.deployment).toMatchObject({
      exists: true,
      replicas: 1,
      currentReplicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      available: true,
    });
    expect(status.deployment).not.toHaveProperty('reason');
    expect(status.pods).toEqual([
      {
        name: pod.metadata.name,
        node: 'kwok-gpu-l4-ondemand-2',
        phase: 'Running',
        ready: true,
        restarts: 0,
        schedulingGates: [],
      },
    ]);
    expect(status.admission).toMatchObject({
      state: 'admitted',
      admitted: 1,
      pending: 0,
      clusterQueue: 'gpu-ml-platform',
      flavors: {
        cpu: 'l4-ondemand',
        memory: 'l4-ondemand',
        'nvidia.com/gpu': 'l4-ondemand',
      },
    });
    expect(status.admission!.workloads[0]).toMatchObject({
      state: 'admitted',
      clusterQueue: 'gpu-ml-platform',
      podSets: [
        {
          name: 'main',
          count: 1,
          flavors: expect.objectContaining({ 'nvidia.com/gpu': 'l4-ondemand' }),
        },
      ],
    });
  });

  it('collects the Warning events of its pods, ReplicaSets and claims only, newest first, from both event APIs', async () => {
    const { read, cluster, api, apply } = await setup();
    const rs = cluster.replicaSet();
    const crashing = cluster.pod(0, 'crashing');
    const unschedulable = cluster.pod(1, 'unschedulable');
    cluster.warning(crashing, {
      reason: 'BackOff',
      message: `Back-off restarting failed container vllm in pod ${crashing.metadata.name}`,
      count: 7,
      lastSeen: '2026-12-01T09:58:00Z',
    });
    cluster.warning(unschedulable, {
      reason: 'FailedScheduling',
      message:
        '0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.',
      count: 3,
      eventsApi: true,
      lastSeen: '2026-12-01T09:59:30Z',
    });
    const claim = api.live(
      `/api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims/summariser-model-cache`,
    )!;
    cluster.warning(claim, {
      reason: 'ProvisioningFailed',
      message: 'storageclass.storage.k8s.io "gp3" not found',
      component: 'persistentvolume-controller',
      lastSeen: '2026-12-01T09:40:00Z',
    });
    cluster.warning(rs, {
      reason: 'FailedCreate',
      message: `Error creating: pods "${rs.metadata.name}-x" is forbidden: exceeded quota: gpu, requested: requests.nvidia.com/gpu=1`,
      component: 'replicaset-controller',
      lastSeen: '2026-12-01T09:50:00Z',
    });
    // A Normal event, and a warning about another service's pod in the same namespace, are left out.
    api.put({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'normal.1', namespace: NAMESPACE },
      involvedObject: {
        kind: 'Pod',
        name: crashing.metadata.name,
        uid: crashing.metadata.uid,
      },
      reason: 'Pulled',
      message: 'Successfully pulled image',
      type: 'Normal',
      count: 1,
      lastTimestamp: SIMULATED_NOW,
    });
    await apply({ ...devSummariser, name: 'other' }, OTHER_ID);
    const other = simulatedControllers(api, {
      namespace: NAMESPACE,
      name: 'other',
    });
    other.replicaSet();
    other.warning(other.pod(0, 'crashing'), {
      reason: 'BackOff',
      message: 'Back-off restarting failed container vllm in pod other',
    });

    const status = await read();
    expect(status.warnings).toEqual([
      {
        object: { kind: 'Pod', name: unschedulable.metadata.name },
        reason: 'FailedScheduling',
        message: expect.stringMatching(/^0\/4 nodes are available/),
        count: 3,
        lastSeen: '2026-12-01T09:59:30.000Z',
      },
      {
        object: { kind: 'Pod', name: crashing.metadata.name },
        reason: 'BackOff',
        message: expect.stringMatching(/^Back-off restarting/),
        count: 7,
        lastSeen: '2026-12-01T09:58:00.000Z',
      },
      {
        object: { kind: 'ReplicaSet', name: rs.metadata.name },
        reason: 'FailedCreate',
        message: expect.stringMatching(/exceeded quota/),
        count: 1,
        lastSeen: '2026-12-01T09:50:00.000Z',
      },
      {
        object: {
          kind: 'PersistentVolumeClaim',
          name: 'summariser-model-cache',
        },
        reason: 'ProvisioningFailed',
        message: 'storageclass.storage.k8s.io "gp3" not found',
        count: 1,
        lastSeen: '2026-12-01T09:40:00.000Z',
      },
    ]);
    expect(status.pods).toEqual([
      expect.objectContaining({
        name: crashing.metadata.name,
        phase: 'Running',
        ready: false,
        restarts: 4,
        reason: 'CrashLoopBackOff',
      }),
      expect.objectContaining({
        name: unschedulable.metadata.name,
        phase: 'Pending',
        reason: 'Unschedulable',
        message: expect.stringMatching(/Insufficient nvidia.com\/gpu/),
      }),
    ]);
    // Events are read once for the namespace, Warning only, as the API server filters them.
    const eventLists = api.requests.filter(r =>
      r.path.startsWith(`/api/v1/namespaces/${NAMESPACE}/events`),
    );
    expect(eventLists).toHaveLength(1);
    expect(
      new URL(`${BASE}${eventLists[0].path}`).searchParams.get('fieldSelector'),
    ).toBe('type=Warning');
  });

  it("reads only the Workloads of the service's pods, by Kueue's job-uid label, over several pages", async () => {
    const { read, cluster, api, apply } = await setup({ pageSize: 1 });
    await apply({ ...devSummariser, name: 'other' }, OTHER_ID);
    const other = simulatedControllers(api, {
      namespace: NAMESPACE,
      name: 'other',
    });
    other.replicaSet();
    other.workload(other.pod(0, 'gated'), {
      admitted: false,
      message: 'not ours',
    });
    cluster.replicaSet();
    const pods = [0, 1, 2].map(i =>
      cluster.pod(i, i === 2 ? 'gated' : 'running'),
    );
    cluster.workload(pods[0], {
      admitted: true,
      clusterQueue: 'gpu-ml-platform',
      flavor: 'l4-ondemand',
    });
    cluster.workload(pods[1], {
      admitted: true,
      clusterQueue: 'gpu-ml-platform',
      flavor: 'l4-ondemand',
    });
    cluster.workload(pods[2], { admitted: false, message: QUOTA_MESSAGE });

    const status = await read();
    expect(status.pods!.map(p => p.name)).toEqual(
      pods.map(p => p.metadata.name).sort(),
    );
    expect(status.admission).toMatchObject({
      state: 'pending',
      admitted: 2,
      pending: 1,
      message: QUOTA_MESSAGE,
    });
    expect(status.admission!.workloads.map(w => w.pod).sort()).toEqual(
      pods.map(p => p.metadata.name).sort(),
    );
    const workloadLists = api.requests.filter(r =>
      r.path.includes('/workloads'),
    );
    // Three of ours at one per page: three pages, each continuing the previous one.
    expect(workloadLists).toHaveLength(3);
    const query = new URL(`${BASE}${workloadLists[0].path}`).searchParams;
    expect(query.get('labelSelector')).toMatch(
      /^kueue\.x-k8s\.io\/job-uid in \(/,
    );
    expect(query.get('limit')).toBe('1');
    expect(
      new URL(`${BASE}${workloadLists[1].path}`).searchParams.get('continue'),
    ).toBeTruthy();
  });

  it('counts a pod gated by Kueue without a Workload as pending', async () => {
    const { read, cluster } = await setup();
    cluster.replicaSet();
    const pod = cluster.pod(0, 'gated');
    const status = await read();
    expect(status.admission).toMatchObject({
      state: 'pending',
      pending: 1,
      message: `pod ${pod.metadata.name} is gated by kueue.x-k8s.io/admission and has no Kueue Workload yet`,
    });
  });

  it('reports a missing Deployment instead of failing, and fails with the cluster message when a read fails', async () => {
    const { read, api } = await setup();
    api.remove(`/apis/apps/v1/namespaces/${NAMESPACE}/deployments/summariser`);
    expect((await read()).deployment).toMatchObject({
      exists: false,
      available: false,
      reason: `Deployment ${NAMESPACE}/summariser is not in the cluster`,
    });

    const podList = api.requests.find(r =>
      r.path.startsWith(`/api/v1/namespaces/${NAMESPACE}/pods?`),
    )!;
    expect(
      new URL(`${BASE}${podList.path}`).searchParams.get('labelSelector'),
    ).toBe(
      `gpu.backstage.io/service-id=${SERVICE_ID},app.kubernetes.io/managed-by=backstage-gpu`,
    );
    api.faults.push({
      method: 'GET',
      path: podList.path,
      failure: 503,
      message: 'apiserver is shutting down',
    });
    const error = await read().catch(e => e);
    expect(error).toBeInstanceOf(KubernetesApplyError);
    expect(error.message).toMatch(/apiserver is shutting down/);
  });

  it('reports the other objects of the manifests the cluster does not have, by a read of each', async () => {
    const { read, api, render } = await setup();
    const others = render(devSummariser, SERVICE_ID)
      .map(refOf)
      .filter(ref => ref.kind !== 'Deployment');
    expect(others.map(o => o.kind)).toContain('Service');
    const whole = await read(others);
    expect(whole.missing).toBeUndefined();
    for (const ref of others) {
      expect(api.requests).toContainEqual(
        expect.objectContaining({
          method: 'GET',
          path: expect.stringContaining(`/${ref.name}`),
        }),
      );
    }

    api.remove(`/api/v1/namespaces/${NAMESPACE}/services/summariser`);
    expect((await read(others)).missing).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Service',
        namespace: NAMESPACE,
        name: 'summariser',
      },
    ]);
    // Without the others, only the Deployment is read, as before.
    expect((await read()).missing).toBeUndefined();
  });

  it('does not read what the informers show as present; reads what they show as absent or do not follow', async () => {
    const views = new Map<string, KubernetesObject | undefined>();
    const keyOf = (ref: ObjectRef) => `${ref.kind}/${ref.name}`;
    const { read, api, render } = await setup({
      // An informer follows Services only.
      live: ref =>
        ref.kind === 'Service'
          ? { object: views.get(keyOf(ref)), resourceVersion: '10' }
          : undefined,
    });
    const manifests = render(devSummariser, SERVICE_ID);
    const others = manifests
      .map(refOf)
      .filter(ref => ref.kind !== 'Deployment');
    const service = others.find(ref => ref.kind === 'Service')!;
    const unfollowed = others.filter(ref => ref.kind !== 'Service');
    expect(unfollowed.length).toBeGreaterThan(0);
    const gets = (ref: ObjectRef) =>
      api.requests.filter(
        r =>
          r.method === 'GET' &&
          r.path.endsWith(`/${ref.name}`) &&
          r.path.includes(`/${ref.kind.toLowerCase()}`),
      ).length;
    for (const manifest of manifests) {
      views.set(keyOf(refOf(manifest)), manifest);
    }
    api.requests.length = 0;
    expect((await read(others)).missing).toBeUndefined();
    expect(gets(service)).toBe(0);
    for (const ref of unfollowed) expect(gets(ref)).toBe(1);

    // Shown as absent, the Service is read: its watch may lag the apply that made it.
    views.delete(keyOf(service));
    expect((await read(others)).missing).toBeUndefined();
    expect(gets(service)).toBe(1);
    api.remove(`/api/v1/namespaces/${NAMESPACE}/services/summariser`);
    expect((await read(others)).missing).toEqual([service]);
  });

  it('takes the service’s Deployment, ReplicaSets, pods, claims, Workloads and Warning events from the informers while they watch, and reads them otherwise', async () => {
    let watching = false;
    let watchingEvents = false;
    const seen: Record<string, KubernetesObject[]> = {};
    const jobUid = 'kueue.x-k8s.io/job-uid';
    const { read, api, cluster, render } = await setup({
      // A service's objects by its id; Workloads by their pod's UID; events by the object they are about.
      indexed: (kind, namespace, value) => {
        if (!watching || namespace !== NAMESPACE) return undefined;
        if (kind.kind === 'Event' && !watchingEvents) return undefined;
        return (seen[kind.kind] ?? []).filter(o => {
          if (kind.kind === 'Workload')
            return o.metadata?.labels?.[jobUid] === value;
          if (kind.kind === 'Event') return subjectOfEvent(o) === value;
          return value === SERVICE_ID;
        });
      },
    });
    const { replicaSet, pod, workload } = readyPod(cluster);
    const warned = cluster.warning(pod, {
      reason: 'Unhealthy',
      message: 'Readiness probe failed: connection refused',
    });
    // About another service's pod in the same namespace: its informer's index keeps it apart.
    const otherPod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'other-0', namespace: NAMESPACE, uid: 'other-uid' },
    };
    const aboutOther = cluster.warning(otherPod, {
      reason: 'BackOff',
      message: 'Back-off restarting failed container vllm',
    });
    const manifests = render(devSummariser, SERVICE_ID);
    const liveOf = (kind: string) =>
      api.live(
        api.pathOf(manifests.find(m => m.kind === kind) as any),
      ) as KubernetesObject;
    const asked = () =>
      api.requests
        .filter(r => r.method === 'GET')
        .map(r => r.path.replace(`/namespaces/${NAMESPACE}`, '').split('?')[0]);
    const READ_OR_LISTED = [
      '/apis/apps/v1/deployments/summariser',
      '/apis/apps/v1/replicasets',
      '/api/v1/pods',
      '/api/v1/persistentvolumeclaims',
      '/apis/kueue.x-k8s.io/v1beta2/workloads',
    ];

    api.requests.length = 0;
    const fromCluster = await read();
    expect(fromCluster.admission?.workloads).toHaveLength(1);
    expect(fromCluster.warnings).toEqual([
      expect.objectContaining({ reason: 'Unhealthy' }),
    ]);
    expect(asked()).toEqual(expect.arrayContaining(READ_OR_LISTED));

    watching = true;
    seen.Deployment = [liveOf('Deployment')];
    seen.ReplicaSet = [replicaSet as KubernetesObject];
    seen.Pod = [pod];
    seen.PersistentVolumeClaim = [liveOf('PersistentVolumeClaim')];
    seen.Workload = [workload as KubernetesObject];
    seen.Event = [warned, aboutOther];
    api.requests.length = 0;
    expect(await read()).toEqual(fromCluster);
    for (const path of READ_OR_LISTED) expect(asked()).not.toContain(path);
    // The events' informer not watching: they are listed.
    expect(asked()).toContain('/api/v1/events');

    watchingEvents = true;
    api.requests.length = 0;
    expect(await read()).toEqual(fromCluster);
    expect(asked()).toEqual([]);

    // No Deployment in their view: it is read, since their watch may lag the apply that created it.
    seen.Deployment = [];
    api.requests.length = 0;
    expect(await read()).toEqual(fromCluster);
    expect(asked()).toContain('/apis/apps/v1/deployments/summariser');
  });

  it('reports an object of a kind the cluster no longer serves as missing, and fails on any other failed read', async () => {
    const { read, api } = await setup({ notServed: ['karpenter.sh/v1'] });
    // Its group version gone (every CRD of it removed): discovery answers 404.
    const nodePool = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      name: 'gpu',
    };
    // Its group version served for other kinds (a PrometheusRule CRD, no ServiceMonitor one).
    const serviceMonitor = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      namespace: NAMESPACE,
      name: 'summariser',
    };
    expect((await read([nodePool, serviceMonitor])).missing).toEqual([
      nodePool,
      serviceMonitor,
    ]);

    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      namespace: NAMESPACE,
      name: 'summariser',
    };
    api.faults.push({
      method: 'GET',
      path: `/api/v1/namespaces/${NAMESPACE}/services/summariser`,
      failure: 403,
      message: 'services "summariser" is forbidden',
    });
    const error = await read([service]).catch(e => e);
    expect(error).toBeInstanceOf(KubernetesApplyError);
    expect(error.message).toMatch(/forbidden/);
  });
});
