import { ConfigReader } from '@backstage/config';
import {
  mockServices,
  registerMswTestHooks,
  TestDatabases,
} from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  readPlatformConfig,
} from '@internal/backstage-plugin-gpu-common';
import { setupServer } from 'msw/node';
import { fakeKubernetesApi } from '../cluster/__testUtils__/fakeKubernetesApi';
import { KubernetesApplier, KubernetesClientFactory } from '../cluster';
import { DatabaseGpuStore } from '../database';
import { seedQuotas } from '../services/seedQuotas';
import { KueueReconciler } from './KueueReconciler';

const BASE = 'https://k8s.test:6443';
const KUEUE = '/apis/kueue.x-k8s.io/v1beta2';
const CLUSTER_QUEUE = `${KUEUE}/clusterqueues/gpu-ml-platform`;
const LOCAL_QUEUE = `${KUEUE}/namespaces/ml-serving/localqueues/gpu-ml-platform`;
/** Kueue objects the demo platform renders (7 flavors, cohort, 3 priority classes, 2 ClusterQueues, 4 LocalQueues). */
const OBJECTS = 17;

const server = setupServer();
registerMswTestHooks(server);

const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
const platform = readPlatformConfig(
  new ConfigReader({ gpu: demoPlatformConfig }),
);
const logger = mockServices.logger.mock();

async function setup(mode: 'apply' | 'gitops' | 'dry-run' = 'apply') {
  const api = fakeKubernetesApi(BASE);
  server.use(...api.handlers);
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
  const reconciler = new KueueReconciler({
    platform,
    store,
    logger,
    clusters: [{ target: { name: 'gpu-eu', mode }, applier }],
  });
  return { api, store, reconciler };
}

function nominalQuota(clusterQueue: any, flavor: string): string {
  return clusterQueue.spec.resourceGroups
    .flatMap((g: any) => g.flavors)
    .find((f: any) => f.name === flavor).resources[0].nominalQuota;
}

describe('KueueReconciler', () => {
  it('reports every object missing on an empty cluster and applies them', async () => {
    const { api, store, reconciler } = await setup();
    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({
      cluster: 'gpu-eu',
      mode: 'apply',
      objects: OBJECTS,
      checked: true,
      applied: true,
      inSync: false,
    });
    expect(report.drifted).toHaveLength(OBJECTS);
    expect(report.drifted.every(d => d.state === 'missing')).toBe(true);
    expect(nominalQuota(api.live(CLUSTER_QUEUE), 'l4-ondemand')).toBe('4');
    expect(await store.listClusterDrift()).toEqual([report]);
  });

  it('sends no mutating request when nothing drifted', async () => {
    const { api, reconciler } = await setup();
    await reconciler.reconcile();
    const version = api.live(CLUSTER_QUEUE)!.metadata.resourceVersion;
    api.requests.length = 0;

    const [report] = await reconciler.reconcile();
    expect(report).toMatchObject({ inSync: true, applied: true, drifted: [] });
    expect(api.requests.length).toBeGreaterThanOrEqual(OBJECTS);
    expect([...new Set(api.requests.map(r => r.method))]).toEqual(['GET']);
    expect(api.live(CLUSTER_QUEUE)!.metadata.resourceVersion).toBe(version);
  });

  it('reports a changed and a missing object, and puts them back', async () => {
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

  it.each(['dry-run', 'gitops'] as const)(
    'sends nothing to a %s cluster and says so',
    async mode => {
      const { api, store, reconciler } = await setup(mode);
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
