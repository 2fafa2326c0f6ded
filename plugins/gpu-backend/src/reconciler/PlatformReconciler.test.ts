import { ConfigReader } from '@backstage/config';
import {
  mockServices,
  registerMswTestHooks,
  TestDatabases,
} from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  PLATFORM_PARTS,
  PlatformPart,
  readPlatformConfig,
  readPlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEVICE_PLUGIN_CONFIG_LABEL,
  FIELD_MANAGER,
  MIG_CONFIG_LABEL,
  simulatedGpuNodes,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { setupServer } from 'msw/node';
import {
  fakeKubernetesApi,
  RecordedRequest,
} from '../cluster/__testUtils__/fakeKubernetesApi';
import { KubernetesApplier, KubernetesClientFactory } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { seedQuotas } from '../services/seedQuotas';
import { PlatformReconciler } from './PlatformReconciler';

const BASE = 'https://k8s.test:6443';
const KUEUE = '/apis/kueue.x-k8s.io/v1beta2';
const CLUSTER_QUEUE = `${KUEUE}/clusterqueues/gpu-ml-platform`;
const LOCAL_QUEUE = `${KUEUE}/namespaces/ml-serving/localqueues/gpu-ml-platform`;
const DEVICE_PLUGIN_CONFIG_MAP =
  '/api/v1/namespaces/gpu-operator/configmaps/device-plugin-config';
const MIG_CONFIG_MAP =
  '/api/v1/namespaces/gpu-operator/configmaps/custom-mig-config';
const NODE_POOL = '/apis/karpenter.sh/v1/nodepools/h100';
const ALERT_RULE =
  '/apis/monitoring.coreos.com/v1/namespaces/monitoring/prometheusrules/gpu-alerts';
/** Kueue objects the demo platform renders (7 flavors, cohort, 3 priority classes, 2 ClusterQueues, 4 LocalQueues). */
const KUEUE_OBJECTS = 17;
/** The device-plugin and MIG ConfigMaps, the Kueue objects, h100's NodePool and the cluster-wide alert rule. */
const PLATFORM_OBJECTS = 2 + KUEUE_OBJECTS + 1 + 1;
/** Simulated nodes of the pools Karpenter does not manage (all but h100's one node). */
const LABELLED_NODES = 15;

const server = setupServer();
registerMswTestHooks(server);

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });

/** The demo platform with only the h100 pool under Karpenter, and the default cluster-wide alerts. */
const gpuConfig = {
  ...demoPlatformConfig,
  pools: demoPlatformConfig.pools.map(pool =>
    pool.name === 'h100' ? pool : { ...pool, karpenter: { managed: false } },
  ),
};
const config = new ConfigReader({ gpu: gpuConfig });
const platform = readPlatformConfig(config);
const operations = readPlatformOperations(config, platform);
const logger = mockServices.logger.mock();

/** The simulated GPU nodes as a cluster has them before anyone labels them for the GPU Operator. */
function unlabelledNodes() {
  return simulatedGpuNodes(platform).map(node => {
    const {
      [DEVICE_PLUGIN_CONFIG_LABEL]: _plugin,
      [MIG_CONFIG_LABEL]: _mig,
      ...labels
    } = node.metadata!.labels!;
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: node.metadata!.name!, labels },
    };
  });
}

async function setup(
  options: {
    mode?: 'apply' | 'gitops' | 'dry-run';
    deliver?: PlatformPart[];
    notServed?: string[];
    missingNamespaces?: string[];
  } = {},
) {
  const mode = options.mode ?? 'apply';
  const api = fakeKubernetesApi(BASE, { notServed: options.notServed });
  server.use(...api.handlers);
  const namespaces = [
    'gpu-operator',
    'monitoring',
    ...platform.teams.flatMap(t => t.namespaces),
  ].filter(n => !options.missingNamespaces?.includes(n));
  for (const name of namespaces) {
    api.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const node of unlabelledNodes()) {
    api.put(node);
  }
  const knex = await databases.init('SQLITE_3');
  const store = await DatabaseGpuStore.create({
    database: mockServices.database({ knex }),
    platform,
  });
  await seedQuotas({ platform, store, logger });
  const applier =
    mode === 'apply'
      ? new KubernetesApplier({
          cluster: 'gpu-eu',
          client: new KubernetesClientFactory().forCluster('gpu-eu', {
            type: 'serviceAccount',
            url: BASE,
            serviceAccountToken: 'sa-token',
          }),
          retry: { maxAttempts: 1 },
        })
      : undefined;
  const reconciler = new PlatformReconciler({
    platform,
    operations,
    deliver: options.deliver ?? [...PLATFORM_PARTS],
    store,
    logger,
    clusters: [{ target: { name: 'gpu-eu', mode }, applier }],
  });
  api.requests.length = 0;
  return { api, store, reconciler };
}

function nominalQuota(clusterQueue: any, flavor: string): string {
  return clusterQueue.spec.resourceGroups
    .flatMap((g: any) => g.flavors)
    .find((f: any) => f.name === flavor).resources[0].nominalQuota;
}

const nodePath = (name: string) => `/api/v1/nodes/${name}`;
const mutating = (api: { requests: RecordedRequest[] }) =>
  api.requests.filter(r => r.method !== 'GET');

describe('PlatformReconciler', () => {
  it('reports every platform object missing on an empty cluster and applies them, ConfigMaps first', async () => {
    const { api, store, reconciler } = await setup();
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({
      cluster: 'gpu-eu',
      mode: 'apply',
      parts: ['gpuOperator', 'kueue', 'nodePools', 'alerts', 'nodeLabels'],
      objects: PLATFORM_OBJECTS + LABELLED_NODES,
      checked: true,
      applied: true,
      inSync: false,
    });
    expect(report.undelivered).toBeUndefined();
    const missing = report.drifted.filter(d => d.state === 'missing');
    expect(missing).toHaveLength(PLATFORM_OBJECTS);
    expect(missing.slice(0, 2).map(d => `${d.kind}/${d.name}`)).toEqual([
      'ConfigMap/custom-mig-config',
      'ConfigMap/device-plugin-config',
    ]);
    expect(
      [...new Set(missing.map(d => d.kind))].filter(
        kind => !['ConfigMap', 'LocalQueue', 'ClusterQueue'].includes(kind),
      ),
    ).toEqual([
      'ResourceFlavor',
      'Cohort',
      'WorkloadPriorityClass',
      'NodePool',
      'PrometheusRule',
    ]);
    expect(nominalQuota(api.live(CLUSTER_QUEUE), 'l4-ondemand')).toBe('4');
    expect(Object.keys(api.live(DEVICE_PLUGIN_CONFIG_MAP)!.data)).toEqual(
      expect.arrayContaining(['default', 'mig-mixed', 'time-slicing-4']),
    );
    expect(api.live(MIG_CONFIG_MAP)).toBeDefined();
    expect(api.live(ALERT_RULE)).toBeDefined();
    // h100's nodes get their config labels from the NodePool's template, not from us.
    expect(
      api.live(NODE_POOL)!.spec.template.metadata.labels[
        DEVICE_PLUGIN_CONFIG_LABEL
      ],
    ).toBe('default');
    expect(await store.listClusterDrift()).toEqual([report]);
  });

  it('puts each pool not under Karpenter its config labels on its nodes, with our field manager, and leaves the Karpenter pool’s nodes alone', async () => {
    const { api, reconciler } = await setup();
    const [report] = await reconciler.reconcile();
    const nodes = report.drifted.filter(d => d.kind === 'Node');
    expect(nodes).toHaveLength(LABELLED_NODES);
    expect(nodes.every(d => d.state === 'changed')).toBe(true);

    const mig = api.live(nodePath('kwok-a100-mig-0'))!;
    expect(mig.metadata.labels).toMatchObject({
      [DEVICE_PLUGIN_CONFIG_LABEL]: 'mig-mixed',
      [MIG_CONFIG_LABEL]: 'all-balanced',
      'gpu.example.com/pool': 'a100-mig',
    });
    const mps = api.live(nodePath('kwok-l4-mps-1'))!;
    expect(mps.metadata.labels[DEVICE_PLUGIN_CONFIG_LABEL]).toBe(
      'mps-4-shared',
    );
    expect(mps.metadata.labels).not.toHaveProperty(MIG_CONFIG_LABEL);
    expect(mps.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: FIELD_MANAGER,
        operation: 'Apply',
        fieldsV1: {
          'f:metadata': {
            'f:labels': { [`f:${DEVICE_PLUGIN_CONFIG_LABEL}`]: {} },
          },
        },
      }),
    ]);
    const patches = mutating(api).filter(r =>
      r.path.startsWith('/api/v1/nodes/'),
    );
    expect(patches).toHaveLength(LABELLED_NODES);
    expect(patches.map(r => r.body)).toContainEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'kwok-l4-mps-1',
        labels: { [DEVICE_PLUGIN_CONFIG_LABEL]: 'mps-4-shared' },
      },
    });
    expect(
      api.live(nodePath('kwok-h100-0'))!.metadata.labels,
    ).not.toHaveProperty(DEVICE_PLUGIN_CONFIG_LABEL);
  });

  it('sends no mutating request when nothing drifted', async () => {
    const { api, reconciler } = await setup();
    await reconciler.reconcile();
    const version = api.live(CLUSTER_QUEUE)!.metadata.resourceVersion;
    const nodeVersion = api.live(nodePath('kwok-l4-mps-0'))!.metadata
      .resourceVersion;
    api.requests.length = 0;

    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ inSync: true, applied: true, drifted: [] });
    expect(api.requests.length).toBeGreaterThanOrEqual(
      PLATFORM_OBJECTS + LABELLED_NODES,
    );
    expect([...new Set(api.requests.map(r => r.method))]).toEqual(['GET']);
    expect(api.live(CLUSTER_QUEUE)!.metadata.resourceVersion).toBe(version);
    expect(api.live(nodePath('kwok-l4-mps-0'))!.metadata.resourceVersion).toBe(
      nodeVersion,
    );
  });

  it('reports a changed and a missing Kueue object, and puts them back', async () => {
    const { api, store, reconciler } = await setup();
    await reconciler.reconcile();
    const clusterQueue = api.live(CLUSTER_QUEUE)!;
    clusterQueue.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota =
      '40';
    api.remove(LOCAL_QUEUE);

    const [report] = await reconciler.reconcile();
    expect(report.inSync).toBe(false);
    expect(report.drifted).toEqual([
      {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'ClusterQueue',
        name: 'gpu-ml-platform',
        state: 'changed',
        fields: [
          {
            path: expect.stringContaining('nominalQuota'),
            expected: '4',
            actual: '40',
          },
        ],
      },
      {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'LocalQueue',
        namespace: 'ml-serving',
        name: 'gpu-ml-platform',
        state: 'missing',
      },
    ]);
    expect(api.live(LOCAL_QUEUE)).toBeDefined();
    expect((await store.listClusterDrift())[0].drifted).toHaveLength(2);
  });

  it('repairs a deleted ConfigMap, a deleted NodePool and a node label edited behind its back, and applies only those', async () => {
    const { api, reconciler } = await setup();
    await reconciler.reconcile();
    api.remove(DEVICE_PLUGIN_CONFIG_MAP);
    api.remove(NODE_POOL);
    api.live(nodePath('kwok-t4-timeslice-0'))!.metadata.labels[
      DEVICE_PLUGIN_CONFIG_LABEL
    ] = 'default';
    api.requests.length = 0;

    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ inSync: false, applied: true });
    expect(report.drifted).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'gpu-operator',
        name: 'device-plugin-config',
        state: 'missing',
      },
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        name: 'h100',
        state: 'missing',
      },
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: 'kwok-t4-timeslice-0',
        state: 'changed',
        fields: [
          {
            path: `metadata.labels["${DEVICE_PLUGIN_CONFIG_LABEL}"]`,
            expected: 'time-slicing-4',
            actual: 'default',
          },
        ],
      },
    ]);
    expect(mutating(api).map(r => r.path.split('?')[0])).toEqual([
      DEVICE_PLUGIN_CONFIG_MAP,
      NODE_POOL,
      nodePath('kwok-t4-timeslice-0'),
    ]);
    expect(api.live(DEVICE_PLUGIN_CONFIG_MAP)).toBeDefined();
    expect(api.live(NODE_POOL)).toBeDefined();
    expect(
      api.live(nodePath('kwok-t4-timeslice-0'))!.metadata.labels[
        DEVICE_PLUGIN_CONFIG_LABEL
      ],
    ).toBe('time-slicing-4');
  });

  it('reports each object whose CRD the cluster lacks, with what to install, and applies the rest', async () => {
    const { api, reconciler } = await setup({
      notServed: ['karpenter.sh/v1', 'monitoring.coreos.com/v1'],
    });
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({
      checked: true,
      applied: true,
      objects: PLATFORM_OBJECTS - 2 + LABELLED_NODES,
    });
    expect(report.undelivered).toEqual([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        name: 'h100',
        reason: 'crd-not-installed',
        message: expect.stringMatching(
          /^CRD not installed: the cluster does not serve NodePool \(karpenter.sh\/v1\); install Karpenter's CRDs/,
        ),
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        namespace: 'monitoring',
        name: 'gpu-alerts',
        reason: 'crd-not-installed',
        message: expect.stringContaining(
          "install the Prometheus operator's CRDs",
        ),
      },
    ]);
    expect(api.live(CLUSTER_QUEUE)).toBeDefined();
    expect(api.live(DEVICE_PLUGIN_CONFIG_MAP)).toBeDefined();
    expect(
      mutating(api).filter(
        r => r.path.includes('karpenter') || r.path.includes('monitoring'),
      ),
    ).toEqual([]);
  });

  it('says so when the GPU Operator namespace does not exist, and delivers everything else', async () => {
    const { api, reconciler } = await setup({
      missingNamespaces: ['gpu-operator'],
    });
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ checked: true, applied: true });
    expect(report.undelivered).toEqual(
      ['custom-mig-config', 'device-plugin-config'].map(name => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'gpu-operator',
        name,
        reason: 'namespace-missing',
        message: expect.stringMatching(
          /^Namespace gpu-operator does not exist: install the NVIDIA GPU Operator in namespace gpu-operator/,
        ),
      })),
    );
    expect(mutating(api).some(r => r.path.includes('gpu-operator'))).toBe(
      false,
    );
    expect(api.live(CLUSTER_QUEUE)).toBeDefined();
    expect(api.live(NODE_POOL)).toBeDefined();
    expect(
      api.live(nodePath('kwok-l4-mps-0'))!.metadata.labels[
        DEVICE_PLUGIN_CONFIG_LABEL
      ],
    ).toBe('mps-4-shared');
  });

  it('delivers only the parts gpu.reconcile.deliver lists', async () => {
    const { api, reconciler } = await setup({ deliver: ['kueue'] });
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({
      parts: ['kueue'],
      objects: KUEUE_OBJECTS,
      applied: true,
    });
    expect([...new Set(report.drifted.map(d => d.apiVersion))]).toEqual([
      'kueue.x-k8s.io/v1beta2',
    ]);
    // Besides Kueue's API, only the LocalQueues' team namespaces are read (and v1's discovery, to read them).
    const others = api.requests.filter(
      r => !r.path.startsWith('/apis/kueue.x-k8s.io/'),
    );
    expect(new Set(others.map(r => `${r.method} ${r.path}`))).toEqual(
      new Set([
        'GET /api/v1',
        ...platform.teams
          .flatMap(t => t.namespaces)
          .map(n => `GET /api/v1/namespaces/${n}`),
      ]),
    );
  });

  it('renders the ClusterQueue from the stored quota, which overrides app-config', async () => {
    const { api, store, reconciler } = await setup();
    await store.putQuota({
      team: 'ml-platform',
      quota: { pools: { 'l4-ondemand': 6 }, monthlyBudgetMicros: 1 },
      actor: 'user:default/admin',
    });
    await reconciler.reconcile();
    expect(nominalQuota(api.live(CLUSTER_QUEUE), 'l4-ondemand')).toBe('6');
  });

  it('reports an apply the cluster refuses', async () => {
    const { api, reconciler } = await setup();
    api.faults.push({
      method: 'PATCH',
      path: `${CLUSTER_QUEUE}?fieldManager=backstage-gpu&force=true`,
      failure: 500,
      message: 'admission webhook "clusterqueue.kueue" denied the request',
    });
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ checked: true, applied: false });
    expect(report.message).toMatch(/Applying failed: .*admission webhook/);
  });

  it('reports a cluster it cannot list nodes on as not compared', async () => {
    const { api, reconciler } = await setup();
    api.faults.push({
      method: 'GET',
      path: '/api/v1/nodes?labelSelector=node.kubernetes.io%2Finstance-type%3Dg6.xlarge%2Ckarpenter.sh%2Fcapacity-type%3Don-demand%2Cgpu.example.com%2Fpool%3Dl4-ondemand&limit=500',
      failure: 403,
      message: 'nodes is forbidden',
    });
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ checked: false, applied: false });
    expect(report.message).toMatch(/^Comparing failed: .*nodes is forbidden/);
    expect(mutating(api)).toEqual([]);
  });

  it.each(['dry-run', 'gitops'] as const)(
    'sends nothing to a %s cluster and says so',
    async mode => {
      const { api, store, reconciler } = await setup({ mode });
      const [report] = await reconciler.reconcile();
      expect(api.requests).toEqual([]);
      expect(report).toMatchObject({
        mode,
        checked: false,
        applied: false,
        drifted: [],
      });
      expect(report.message).toMatch(new RegExp(`${mode} mode`));
      expect(await store.listClusterDrift()).toEqual([report]);
    },
  );
});
