import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { BatchV1Api } from '@kubernetes/client-node';
import fs from 'node:fs';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  LocalClusterClients,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';

jest.setTimeout(300_000);

const TEAM = 'cluster-mk';
const NAMESPACE = 'cluster-mk';
/** The team's LocalQueue (and ClusterQueue) name on every cluster: Kueue's MultiKueue needs the same on workers. */
const QUEUE = `gpu-${TEAM}`;
/**
 * dev's spot L4s (the demo pool) and prod-eu's: the kwok spot L4 nodes each control plane has, those of prod-eu
 * labelled as a pool of their own for the suite (a pool's labels must tell it apart from every other pool's).
 */
const DEV_POOL = 'spot-l4';
const PROD_POOL = 'spot-l4-eu';
const POOL_LABEL = 'gpu.example.com/pool';
const spotL4 = demoPlatformConfig.pools.find(p => p.name === DEV_POOL)!;
const spotL4Eu = {
  ...spotL4,
  name: PROD_POOL,
  cluster: 'prod-eu',
  nodeLabels: { ...spotL4.nodeLabels, [POOL_LABEL]: PROD_POOL },
};

/** Sets the pool label of the cluster's kwok nodes labelled `from` to `to`. */
async function relabelPool(
  clients: LocalClusterClients,
  from: string,
  to: string,
) {
  const nodes = await clients.core.listNode({
    labelSelector: `${POOL_LABEL}=${from}`,
  });
  for (const node of nodes.items) {
    await clients.core.patchNode({
      name: node.metadata!.name!,
      body: [
        {
          op: 'replace',
          path: `/metadata/labels/${POOL_LABEL.replace('/', '~1')}`,
          value: to,
        },
      ],
    });
  }
}

/**
 * A control plane of the suite from its environment variable (`scripts/test` starts all three in parallel); an error
 * naming what to do without one, so the suite fails rather than skips.
 */
function kubeconfigOf(variable: string, what: string): string {
  const path = process.env[variable];
  if (path && fs.existsSync(path)) return path;
  throw new Error(
    `No ${what} for the MultiKueue suite: ${variable} is ${
      path ?? 'not set'
    }. Start one with GPU_CLUSTER_DIR=<dir> GPU_CLUSTER_PORT_BASE=<base> scripts/cluster up and point it at <dir>/kubeconfig.`,
  );
}

/**
 * A Deployment in the team's namespace, queued in its LocalQueue (Kueue's deployment integration), whose one pod
 * holds one spot L4 of the team's ClusterQueue on that cluster: quota Kueue counts and the backend's ledger does not.
 */
async function holdWorkerQuota(clients: LocalClusterClients, name: string) {
  // Production's priority, above the OCR batch's (dev): the team's ClusterQueue preempts lower priorities within it
  // (withinClusterQueue: LowerPriority), so a hold of no priority would be evicted for the Job, and which worker
  // admits the Job first would be a race.
  const labels = {
    app: name,
    [`kueue.x-k8s.io/queue-name`]: QUEUE,
    'kueue.x-k8s.io/priority-class': 'gpu-production',
  };
  await clients.apps.createNamespacedDeployment({
    namespace: NAMESPACE,
    body: {
      metadata: { name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: {
              'karpenter.sh/capacity-type': 'spot',
            },
            tolerations: [{ operator: 'Exists' }],
            containers: [
              {
                name: 'hold',
                image: 'registry.example.com/hold:1',
                resources: {
                  requests: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' },
                  limits: { 'nvidia.com/gpu': '1' },
                },
              },
            ],
          },
        },
      },
    },
  });
  await eventually(
    `${name} running on a kwok spot L4, admitted by that cluster's Kueue`,
    async () => {
      const pods = await clients.core.listNamespacedPod({
        namespace: NAMESPACE,
        labelSelector: `app=${name}`,
      });
      return pods.items.some(p => p.status?.phase === 'Running')
        ? true
        : undefined;
    },
    { timeoutMs: 90_000 },
  );
}

async function clean(clients: LocalClusterClients) {
  await clients.apps
    .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
    .catch(() => undefined);
  await clients.kc
    .makeApiClient(BatchV1Api)
    .deleteCollectionNamespacedJob({
      namespace: NAMESPACE,
      propagationPolicy: 'Background',
    })
    .catch(() => undefined);
  await eventually(
    'no pod left from an earlier run',
    async () =>
      (
        await clients.core.listNamespacedPod({ namespace: NAMESPACE })
      ).items.length === 0
        ? true
        : undefined,
    { timeoutMs: 90_000 },
  );
}

describeOnLocalCluster(
  'MultiKueue: a manager dispatches the OCR batch to dev and prod-eu',
  devKubeconfig => {
    const prodKubeconfig = kubeconfigOf(
      'GPU_TEST_FLEET_KUBECONFIG',
      'second cluster (prod-eu)',
    );
    const managerKubeconfig = kubeconfigOf(
      'GPU_TEST_MULTIKUEUE_KUBECONFIG',
      'MultiKueue manager cluster',
    );
    const dev = localClusterClients(devKubeconfig);
    const prod = localClusterClients(prodKubeconfig);
    const manager = localClusterClients(managerKubeconfig);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;

    beforeAll(async () => {
      await relabelPool(prod, DEV_POOL, PROD_POOL);
      for (const clients of [dev, prod, manager]) {
        await createNamespaces(clients, [NAMESPACE]);
        await clean(clients);
      }
      const started = await startLocalClusterBackend({
        kubeconfig: devKubeconfig,
        groups: [TEAM],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { [DEV_POOL]: 1, [PROD_POOL]: 1 },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          clusters: [
            { name: 'dev', mode: 'apply', kubeconfig: devKubeconfig },
            { name: 'prod-eu', mode: 'apply', kubeconfig: prodKubeconfig },
            {
              name: 'batch',
              mode: 'apply',
              kubeconfig: managerKubeconfig,
              multiKueue: { workers: ['dev', 'prod-eu'] },
            },
          ],
          pools: [
            ...demoPlatformConfig.pools.map(pool => ({
              ...pool,
              cluster: pool.name === 'l4-ondemand' ? 'prod-eu' : 'dev',
            })),
            spotL4Eu,
          ],
          environments: [
            { name: 'dev' },
            { name: 'staging' },
            { name: 'production', clusters: ['prod-*'] },
          ],
          statusRefresh: { frequency: { seconds: 1 } },
        },
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      await stop?.();
      for (const clients of [dev, prod, manager]) {
        await clean(clients).catch(() => undefined);
      }
      await relabelPool(prod, PROD_POOL, DEV_POOL);
    });

    async function submit(name: string) {
      const res = await http.post('/api/gpu/batch-jobs').send({
        request: {
          name,
          team: TEAM,
          namespace: NAMESPACE,
          environment: 'dev',
          pool: DEV_POOL,
          image: 'registry.example.com/ocr-worker:1.4.2',
          completions: 2,
          parallelism: 1,
          gpusPerPod: 1,
          backoffLimit: 2,
        },
      });
      expect(`${res.status} ${res.body.error?.message ?? ''}`).toBe('201 ');
      return res.body;
    }

    /** The batch job read back until it finished: from the manager, with the worker Kueue ran it on. */
    async function finished(name: string) {
      return eventually(
        `${name} finished`,
        async () => {
          const res = await http
            .get(`/api/gpu/batch-jobs/${NAMESPACE}/${name}`)
            .expect(200);
          if (res.body.state === 'failed') throw new Error('the Job failed');
          return res.body.state === 'succeeded' ? res.body : undefined;
        },
        { timeoutMs: 120_000 },
      );
    }

    async function auditOf(action: string) {
      const res = await http
        .get('/api/gpu/audit')
        .query({ action, limit: 100 })
        .expect(200);
      return res.body.items as Array<{
        subjectId: string;
        after?: Record<string, unknown>;
      }>;
    }

    async function queueOn(clients: LocalClusterClients) {
      return eventually(`LocalQueue ${QUEUE}`, async () =>
        clients.custom
          .getNamespacedCustomObject({
            group: 'kueue.x-k8s.io',
            version: 'v1beta2',
            namespace: NAMESPACE,
            plural: 'localqueues',
            name: QUEUE,
          })
          .catch(() => undefined),
      );
    }

    it('runs the OCR batch’s Jobs on both workers, charges each worker’s pool and releases them when they complete', async () => {
      // The platform loop gives each worker the team's queue objects (the team has quota on a pool of each).
      await queueOn(dev);
      await queueOn(prod);
      // The platform loop keeps the manager's objects too, before any Job: the workers' kubeconfigs and
      // MultiKueueClusters (Kueue connects to both), the admission check and the team's ClusterQueue; the manager's
      // drift report covers them.
      await eventually('the manager connected to both workers', async () => {
        const list = (await manager.custom.listClusterCustomObject({
          group: 'kueue.x-k8s.io',
          version: 'v1beta2',
          plural: 'multikueueclusters',
        })) as {
          items: Array<{
            metadata: { name: string };
            status?: { conditions?: Array<{ type: string; status: string }> };
          }>;
        };
        const active = list.items
          .filter(c =>
            c.status?.conditions?.some(
              x => x.type === 'Active' && x.status === 'True',
            ),
          )
          .map(c => c.metadata.name)
          .sort();
        return active.join(',') === 'dev,prod-eu' ? true : undefined;
      });
      const drift = await http.get('/api/gpu/clusters/drift').expect(200);
      const managerReport = drift.body.items.find(
        (r: { cluster: string }) => r.cluster === 'batch',
      );
      expect(managerReport).toMatchObject({ checked: true, applied: true });
      // The manager has no pool of its own: no device-plugin ConfigMaps or alert rules, only the MultiKueue part.
      expect(managerReport.undelivered).toBeUndefined();
      const queue = (await manager.custom.getClusterCustomObject({
        group: 'kueue.x-k8s.io',
        version: 'v1beta2',
        plural: 'clusterqueues',
        name: `gpu-${TEAM}`,
      })) as { spec: { admissionChecksStrategy?: unknown } };
      expect(queue.spec.admissionChecksStrategy).toEqual({
        admissionChecks: [{ name: 'gpu-multikueue' }],
      });

      // prod-eu's team queue is full (outside the ledger): Kueue can only run the first Job on dev.
      await holdWorkerQuota(prod, 'hold-prod');
      const a = await submit('ocr-a');
      expect(a.mode).toBe('apply');
      expect(a.pool).toBe(DEV_POOL);
      const job = a.manifests.find((m: { kind: string }) => m.kind === 'Job');
      expect(job.spec.managedBy).toBe('kueue.x-k8s.io/multikueue');
      expect(a.manifests.map((m: { kind: string }) => m.kind).sort()).toEqual(
        expect.arrayContaining([
          'AdmissionCheck',
          'ClusterQueue',
          'LocalQueue',
          'MultiKueueCluster',
          'MultiKueueConfig',
        ]),
      );
      // No kubeconfig Secret in the answer; on the manager, one per worker.
      expect(
        a.manifests.some((m: { kind: string }) => m.kind === 'Secret'),
      ).toBe(false);
      for (const worker of ['dev', 'prod-eu']) {
        const secret = await manager.core.readNamespacedSecret({
          namespace: 'kueue-system',
          name: `gpu-multikueue-${worker}`,
        });
        expect(Object.keys(secret.data ?? {})).toEqual(['kubeconfig']);
      }
      const doneA = await finished('ocr-a');
      expect(doneA.cluster).toBe('batch');
      expect(doneA.workerCluster).toBe('dev');
      expect(doneA.succeeded).toBe(2);

      // Now dev's team queue is full and prod-eu's free: the second Job runs on prod-eu, though the ledger held the
      // team's free quota on dev's pool at its submission; it moves to prod-eu's pool once the manager names the worker.
      await dev.apps.deleteCollectionNamespacedDeployment({
        namespace: NAMESPACE,
      });
      await prod.apps.deleteNamespacedDeployment({
        name: 'hold-prod',
        namespace: NAMESPACE,
      });
      await holdWorkerQuota(dev, 'hold-dev');
      const b = await submit('ocr-b');
      expect(b.pool).toBe(DEV_POOL);
      const doneB = await finished('ocr-b');
      expect(doneB.cluster).toBe('batch');
      expect(doneB.workerCluster).toBe('prod-eu');
      expect(doneB.succeeded).toBe(2);

      // Where they ran, as each worker's Kueue reported it through the manager's Workloads.
      const workloads = (await manager.custom.listNamespacedCustomObject({
        group: 'kueue.x-k8s.io',
        version: 'v1beta2',
        namespace: NAMESPACE,
        plural: 'workloads',
      })) as {
        items: Array<{
          metadata: { ownerReferences?: Array<{ kind: string; name: string }> };
          status?: { clusterName?: string };
        }>;
      };
      const ranOn = Object.fromEntries(
        workloads.items.map(w => [
          w.metadata.ownerReferences?.find(o => o.kind === 'Job')?.name,
          w.status?.clusterName,
        ]),
      );
      expect(ranOn['ocr-a']).toBe('dev');
      expect(ranOn['ocr-b']).toBe('prod-eu');

      // The ledger: ocr-a stayed on dev's pool; ocr-b's reservation moved to prod-eu's pool; both released.
      const placed = await auditOf('batch-job.place');
      expect(placed.find(e => e.subjectId === a.id)?.after).toMatchObject({
        workerCluster: 'dev',
        pool: DEV_POOL,
      });
      expect(placed.find(e => e.subjectId === b.id)?.after).toMatchObject({
        workerCluster: 'prod-eu',
        pool: PROD_POOL,
      });
      const moved = await auditOf('reservation.move');
      expect(
        moved.filter(e => e.after?.pool === PROD_POOL).length,
      ).toBeGreaterThanOrEqual(1);
      const released = await auditOf('batch-job.release');
      for (const [id, pool, worker] of [
        [a.id, DEV_POOL, 'dev'],
        [b.id, PROD_POOL, 'prod-eu'],
      ]) {
        expect(released.find(e => e.subjectId === id)?.after).toMatchObject({
          state: 'finished',
          pool,
          workerCluster: worker,
          finishReason: expect.stringContaining('completed'),
        });
      }
      const quota = (await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200))
        .body;
      expect(quota.reservedGpuEquivalents[DEV_POOL] ?? 0).toBe(0);
      expect(quota.reservedGpuEquivalents[PROD_POOL] ?? 0).toBe(0);
    });
  },
);
