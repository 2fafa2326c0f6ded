import { registerMswTestHooks } from '@backstage/backend-test-utils';
import type { KubernetesObject } from '@kubernetes/client-node';
import { setupServer } from 'msw/node';
import { fakeKubernetesApi, Fault } from './__testUtils__/fakeKubernetesApi';
import { KubernetesApplyError } from './errors';
import { KubernetesApplier } from './KubernetesApplier';
import { KubernetesClientFactory } from './KubernetesClientFactory';

const BASE = 'https://k8s.test:6443';
const TOKEN = 'sa-token';
const SERVICE_ID = '3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21';
const SSA = '?fieldManager=backstage-gpu&force=true';

const server = setupServer();
registerMswTestHooks(server);

function owned(labels: Record<string, string> = {}) {
  return {
    'app.kubernetes.io/managed-by': 'backstage-gpu',
    'gpu.backstage.io/service-id': SERVICE_ID,
    ...labels,
  };
}

const PLATFORM = {
  'app.kubernetes.io/managed-by': 'backstage-gpu',
  'gpu.backstage.io/scope': 'platform',
};

/** Platform objects, a team object and a service's objects, in apply order. */
function objects(): KubernetesObject[] {
  return [
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ResourceFlavor',
      metadata: { name: 'a100', labels: PLATFORM },
      spec: {
        nodeLabels: { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB' },
      },
    } as KubernetesObject,
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'ClusterQueue',
      metadata: {
        name: 'team-ml',
        labels: { ...PLATFORM, 'gpu.backstage.io/team': 'ml' },
      },
      spec: {
        namespaceSelector: {},
        resourceGroups: [
          {
            coveredResources: ['nvidia.com/gpu'],
            flavors: [
              {
                name: 'a100',
                resources: [{ name: 'nvidia.com/gpu', nominalQuota: '4' }],
              },
            ],
          },
        ],
      },
    } as KubernetesObject,
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: { name: 'ml', namespace: 'ml' },
      spec: { clusterQueue: 'team-ml' },
    } as KubernetesObject,
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'llama-cache', namespace: 'ml', labels: owned() },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '50Gi' } },
      },
    } as KubernetesObject,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'llama', namespace: 'ml', labels: owned() },
      spec: {
        selector: { 'app.kubernetes.io/name': 'llama' },
        ports: [{ name: 'http', port: 8000, targetPort: 'http' }],
      },
    } as KubernetesObject,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'llama',
        namespace: 'ml',
        labels: owned({ 'kueue.x-k8s.io/queue-name': 'ml' }),
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'llama' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': 'llama' } },
          spec: {
            containers: [
              {
                name: 'vllm',
                image: 'vllm/vllm-openai:v0.6.3',
                args: ['--model', 'meta-llama/Llama-3.1-8B-Instruct'],
                ports: [{ name: 'http', containerPort: 8000 }],
                resources: {
                  limits: { 'nvidia.com/gpu': '1', memory: '32Gi' },
                  requests: { cpu: '4', memory: '32Gi' },
                },
              },
            ],
          },
        },
      },
    } as KubernetesObject,
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'llama', namespace: 'ml', labels: owned() },
      spec: {
        maxUnavailable: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'llama' } },
      },
    } as KubernetesObject,
  ];
}

const FLAVOR = '/apis/kueue.x-k8s.io/v1beta2/resourceflavors/a100';
const CLUSTER_QUEUE = '/apis/kueue.x-k8s.io/v1beta2/clusterqueues/team-ml';
const LOCAL_QUEUE = '/apis/kueue.x-k8s.io/v1beta2/namespaces/ml/localqueues/ml';
const CLAIM = '/api/v1/namespaces/ml/persistentvolumeclaims/llama-cache';
const SERVICE = '/api/v1/namespaces/ml/services/llama';
const DEPLOYMENT = '/apis/apps/v1/namespaces/ml/deployments/llama';
const PDB = '/apis/policy/v1/namespaces/ml/poddisruptionbudgets/llama';
const OBJECT_PATHS = [
  FLAVOR,
  CLUSTER_QUEUE,
  LOCAL_QUEUE,
  CLAIM,
  SERVICE,
  DEPLOYMENT,
  PDB,
];

/** Requests of a first apply: discovery of each group version once, then one SSA per object. */
const FIRST_APPLY = [
  'GET /apis/kueue.x-k8s.io/v1beta2',
  `PATCH ${FLAVOR}${SSA}`,
  `PATCH ${CLUSTER_QUEUE}${SSA}`,
  `PATCH ${LOCAL_QUEUE}${SSA}`,
  'GET /api/v1',
  `PATCH ${CLAIM}${SSA}`,
  `PATCH ${SERVICE}${SSA}`,
  'GET /apis/apps/v1',
  `PATCH ${DEPLOYMENT}${SSA}`,
  'GET /apis/policy/v1',
  `PATCH ${PDB}${SSA}`,
];

function setup(options: { maxAttempts?: number } = {}) {
  const api = fakeKubernetesApi(BASE);
  server.use(...api.handlers);
  const sleeps: number[] = [];
  const factory = new KubernetesClientFactory({ requestTimeoutMs: 100 });
  const applier = new KubernetesApplier({
    cluster: 'gpu-eu',
    client: factory.forCluster('gpu-eu', {
      type: 'serviceAccount',
      url: BASE,
      serviceAccountToken: TOKEN,
      skipTLSVerify: true,
    }),
    retry: {
      maxAttempts: options.maxAttempts ?? 4,
      initialDelayMs: 100,
      maxDelayMs: 1_000,
      sleep: async ms => {
        sleeps.push(ms);
      },
    },
  });
  const lines = () => api.requests.map(r => `${r.method} ${r.path}`);
  return { api, applier, sleeps, lines };
}

describe('KubernetesApplier', () => {
  it('server-side applies each object once, in order, with the field manager and force', async () => {
    const { api, applier, lines } = setup();
    const rendered = objects();

    const results = await applier.apply(rendered);

    expect(lines()).toEqual(FIRST_APPLY);
    const patches = api.requests.filter(r => r.method === 'PATCH');
    patches.forEach((patch, index) => {
      expect(patch.contentType).toBe('application/apply-patch+yaml');
      expect(patch.authorization).toBe(`Bearer ${TOKEN}`);
      expect(patch.body).toEqual(rendered[index]);
    });
    expect(results.map(r => [r.ref.kind, r.ref.name, r.attempts])).toEqual([
      ['ResourceFlavor', 'a100', 1],
      ['ClusterQueue', 'team-ml', 1],
      ['LocalQueue', 'ml', 1],
      ['PersistentVolumeClaim', 'llama-cache', 1],
      ['Service', 'llama', 1],
      ['Deployment', 'llama', 1],
      ['PodDisruptionBudget', 'llama', 1],
    ]);
    expect(rendered).toEqual(objects());
  });

  it('re-applies unchanged objects with the same patches only, changing nothing', async () => {
    const { api, applier, lines } = setup();
    const first = await applier.apply(objects());
    const before = api.requests.length;

    const second = await applier.apply(objects());

    const again = api.requests.slice(before);
    expect(again.map(r => `${r.method} ${r.path}`)).toEqual(
      OBJECT_PATHS.map(path => `PATCH ${path}${SSA}`),
    );
    expect(again.map(r => r.body)).toEqual(objects());
    expect(second.map(r => r.resourceVersion)).toEqual(
      first.map(r => r.resourceVersion),
    );
    expect(
      lines().filter(l => !l.startsWith('PATCH') && !l.startsWith('GET')),
    ).toEqual([]);
  });

  const failures: Array<[string, Fault['failure']]> = [
    ['409 conflict', 409],
    ['429 throttling', 429],
    ['500 error', 500],
    ['timeout', 'timeout'],
  ];

  describe.each(failures)('a %s', (_name, failure) => {
    it.each(FIRST_APPLY.map((line, step) => [step, line] as const))(
      'at step %i (%s) is retried, then the apply completes',
      async (step, line) => {
        const { api, applier, lines, sleeps } = setup();
        const [method, path] = line.split(' ');
        api.faults.push({ method, path, failure });

        const results = await applier.apply(objects());

        const expected = [...FIRST_APPLY];
        expected.splice(step, 0, line);
        expect(lines()).toEqual(expected);
        expect(sleeps).toEqual([100]);
        expect(results).toHaveLength(OBJECT_PATHS.length);
        for (const objectPath of OBJECT_PATHS) {
          expect(api.live(objectPath)).toBeDefined();
        }
      },
    );
  });

  it('retries a reset connection', async () => {
    const { api, applier, lines } = setup();
    api.faults.push({
      method: 'PATCH',
      path: `${DEPLOYMENT}${SSA}`,
      failure: 'network',
    });

    await applier.apply(objects());

    const expected = [...FIRST_APPLY];
    const deployment = expected.indexOf(`PATCH ${DEPLOYMENT}${SSA}`);
    expected.splice(deployment, 0, expected[deployment]);
    expect(lines()).toEqual(expected);
  });

  it('backs off exponentially and honours Retry-After', async () => {
    const { api, applier, sleeps } = setup({ maxAttempts: 5 });
    api.faults.push(
      {
        method: 'PATCH',
        path: `${SERVICE}${SSA}`,
        failure: 500,
        times: 3,
      },
      {
        method: 'PATCH',
        path: `${DEPLOYMENT}${SSA}`,
        failure: 429,
        retryAfterSeconds: 0.5,
      },
    );

    const results = await applier.apply(objects());

    expect(sleeps).toEqual([100, 200, 400, 500]);
    expect(results.map(r => r.attempts)).toEqual([1, 1, 1, 1, 4, 2, 1]);
  });

  it('gives up after the last attempt, naming the object and the cluster message', async () => {
    const { api, applier, lines } = setup({ maxAttempts: 3 });
    api.faults.push({
      method: 'PATCH',
      path: `${SERVICE}${SSA}`,
      failure: 500,
      times: 3,
      message: 'etcdserver: request timed out',
    });

    const error = await applier.apply(objects()).catch(e => e);

    expect(error).toBeInstanceOf(KubernetesApplyError);
    expect(error.message).toBe(
      "Service ml/llama on cluster 'gpu-eu' failed after 3 attempts: 500 etcdserver: request timed out",
    );
    expect(error).toMatchObject({
      cluster: 'gpu-eu',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        namespace: 'ml',
        name: 'llama',
      },
      attempts: 3,
      statusCode: 500,
      clusterMessage: 'etcdserver: request timed out',
    });
    // Objects before the failure stay applied; nothing after it is attempted.
    expect(lines().filter(l => l.includes('deployments'))).toEqual([]);
    expect(api.live(CLAIM)).toBeDefined();
  });

  it('gives up on timeouts after the last attempt', async () => {
    const { api, applier } = setup({ maxAttempts: 2 });
    api.faults.push({
      method: 'PATCH',
      path: `${FLAVOR}${SSA}`,
      failure: 'timeout',
      times: 2,
    });

    await expect(applier.apply(objects())).rejects.toThrow(
      "ResourceFlavor a100 on cluster 'gpu-eu' failed after 2 attempts: no answer within 100 ms",
    );
  });

  it('does not retry what cannot succeed', async () => {
    const { api, applier, sleeps } = setup();
    api.faults.push({
      method: 'PATCH',
      path: `${DEPLOYMENT}${SSA}`,
      failure: 422,
      message:
        'Deployment.apps "llama" is invalid: spec.replicas: Invalid value: -1',
    });

    await expect(applier.apply(objects())).rejects.toThrow(
      'Deployment ml/llama on cluster \'gpu-eu\' failed after 1 attempt: 422 Deployment.apps "llama" is invalid',
    );
    expect(sleeps).toEqual([]);
  });

  it('names an object whose kind the cluster does not serve', async () => {
    const { applier } = setup();
    await expect(
      applier.apply([
        {
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          metadata: { name: 'llama', namespace: 'ml' },
        },
      ]),
    ).rejects.toThrow(
      /^ScaledObject ml\/llama on cluster 'gpu-eu' failed after 1 attempt: 404 /,
    );
  });

  it('deletes what the service owns by label, tolerating objects already gone', async () => {
    const { api, applier } = setup();
    await applier.apply(objects());
    const before = api.requests.length;
    const selector = encodeURIComponent(
      `gpu.backstage.io/service-id=${SERVICE_ID},app.kubernetes.io/managed-by=backstage-gpu`,
    );
    api.faults.push({
      method: 'DELETE',
      path: '/api/v1/namespaces/ml/services/llama',
      failure: 404,
    });

    const results = await applier.deleteByOwnership(SERVICE_ID, [
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: 'ml' },
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml' },
      { apiVersion: 'v1', kind: 'Service', namespace: 'ml' },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ml' },
    ]);

    expect(
      api.requests.slice(before).map(r => `${r.method} ${r.path}`),
    ).toEqual([
      `GET /apis/policy/v1/namespaces/ml/poddisruptionbudgets?labelSelector=${selector}`,
      `DELETE ${PDB}`,
      `GET /apis/apps/v1/namespaces/ml/deployments?labelSelector=${selector}`,
      'DELETE /apis/apps/v1/namespaces/ml/deployments/llama',
      `GET /api/v1/namespaces/ml/services?labelSelector=${selector}`,
      'DELETE /api/v1/namespaces/ml/services/llama',
      `GET /api/v1/namespaces/ml/persistentvolumeclaims?labelSelector=${selector}`,
      'DELETE /api/v1/namespaces/ml/persistentvolumeclaims/llama-cache',
    ]);
    expect(results.map(r => [r.ref.kind, r.ref.name, r.outcome])).toEqual([
      ['PodDisruptionBudget', 'llama', 'deleted'],
      ['Deployment', 'llama', 'deleted'],
      ['Service', 'llama', 'already-gone'],
      ['PersistentVolumeClaim', 'llama-cache', 'deleted'],
    ]);
    // Platform and team objects carry no service id and stay.
    for (const path of [FLAVOR, CLUSTER_QUEUE, LOCAL_QUEUE]) {
      expect(api.live(path)).toBeDefined();
    }
    for (const path of [CLAIM, DEPLOYMENT, PDB]) {
      expect(api.live(path)).toBeUndefined();
    }
  });

  it('retries a failed list and delete during teardown', async () => {
    const { api, applier } = setup();
    await applier.apply(objects());
    const selector = encodeURIComponent(
      `gpu.backstage.io/service-id=${SERVICE_ID},app.kubernetes.io/managed-by=backstage-gpu`,
    );
    api.faults.push(
      {
        method: 'GET',
        path: `/apis/apps/v1/namespaces/ml/deployments?labelSelector=${selector}`,
        failure: 503,
      },
      {
        method: 'DELETE',
        path: '/apis/apps/v1/namespaces/ml/deployments/llama',
        failure: 'timeout',
      },
    );

    const results = await applier.deleteByOwnership(SERVICE_ID, [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ml' },
    ]);

    expect(results).toEqual([
      {
        ref: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'ml',
          name: 'llama',
        },
        outcome: 'deleted',
      },
    ]);
  });

  it('deletes exactly the objects named, retrying a passing failure, an object already gone as such', async () => {
    const { api, applier } = setup();
    await applier.apply(objects());
    const before = api.requests.length;
    api.faults.push({ method: 'DELETE', path: PDB, failure: 503 });

    const results = await applier.deleteObjects([
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: 'ml',
        name: 'llama',
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: 'ml',
        name: 'never-there',
      },
    ]);

    expect(
      api.requests.slice(before).map(r => `${r.method} ${r.path}`),
    ).toEqual([
      `DELETE ${PDB}`,
      `DELETE ${PDB}`,
      'DELETE /apis/policy/v1/namespaces/ml/poddisruptionbudgets/never-there',
    ]);
    expect(results.map(r => [r.ref.name, r.outcome])).toEqual([
      ['llama', 'deleted'],
      ['never-there', 'already-gone'],
    ]);
    expect(api.live(PDB)).toBeUndefined();
    expect(api.live(DEPLOYMENT)).toBeDefined();
  });

  it('reports no drift for applied objects despite server defaults', async () => {
    const { applier } = setup();
    await applier.apply(objects());
    expect(await applier.diff(objects())).toEqual({
      inSync: true,
      drifted: [],
    });
  });

  it('reports missing objects and changed managed fields', async () => {
    const { api, applier } = setup();
    await applier.apply(objects());
    api.remove(SERVICE);
    const deployment = api.live(DEPLOYMENT)!;
    deployment.spec.replicas = 3;
    deployment.spec.template.spec.containers[0].image =
      'vllm/vllm-openai:latest';
    deployment.spec.template.spec.containers[0].resources.limits.memory =
      '32768Mi';
    delete deployment.metadata.labels['kueue.x-k8s.io/queue-name'];
    const before = api.requests.length;

    const report = await applier.diff(objects());

    expect(report).toEqual({
      inSync: false,
      drifted: [
        {
          ref: {
            apiVersion: 'v1',
            kind: 'Service',
            namespace: 'ml',
            name: 'llama',
          },
          state: 'missing',
        },
        {
          ref: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            namespace: 'ml',
            name: 'llama',
          },
          state: 'changed',
          fields: [
            {
              path: 'metadata.labels["kueue.x-k8s.io/queue-name"]',
              expected: 'ml',
              actual: undefined,
            },
            { path: 'spec.replicas', expected: 1, actual: 3 },
            {
              path: 'spec.template.spec.containers[name=vllm].image',
              expected: 'vllm/vllm-openai:v0.6.3',
              actual: 'vllm/vllm-openai:latest',
            },
          ],
        },
      ],
    });
    expect(api.requests.slice(before).every(r => r.method === 'GET')).toBe(
      true,
    );
  });
});
