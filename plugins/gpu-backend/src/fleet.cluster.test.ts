import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { BatchV1Api } from '@kubernetes/client-node';
import fs from 'node:fs';
import {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  LocalClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';
import {
  openWatches,
  untilWatchesReturn,
} from './__testUtils__/apiServerWatches';
import { clusterComponent } from './__testUtils__/clusterComponent';

jest.setTimeout(300_000);

const TEAM = 'cluster-fleet';
const NAMESPACE = 'cluster-fleet';
/** The on-demand L4s are the production cluster's; every other demo pool is the dev cluster's. */
const PROD_POOL = 'l4-ondemand';
const DEV_POOL = 'spot-l4';

/**
 * The second control plane of the fleet suite (`scripts/test` starts it beside the test cluster, in parallel): its
 * kubeconfig, from `GPU_TEST_FLEET_KUBECONFIG`; an error naming what to do without one, so the suite fails rather
 * than skips.
 */
function prodKubeconfig(): string {
  const path = process.env.GPU_TEST_FLEET_KUBECONFIG;
  if (path && fs.existsSync(path)) return path;
  throw new Error(
    `No second cluster for the fleet suite: GPU_TEST_FLEET_KUBECONFIG is ${
      path ?? 'not set'
    }. Start one with GPU_CLUSTER_DIR=<dir> GPU_CLUSTER_PORT_BASE=<base> scripts/cluster up and point it at <dir>/kubeconfig.`,
  );
}

async function deploymentsNamed(
  clients: LocalClusterClients,
  name: string,
): Promise<number> {
  const list = await clients.apps.listNamespacedDeployment({
    namespace: NAMESPACE,
  });
  return list.items.filter(d => d.metadata?.name === name).length;
}

describeOnLocalCluster(
  'a fleet of two clusters: dev and prod-eu, both applied to',
  devKubeconfig => {
    const prodConfig = prodKubeconfig();
    const dev = localClusterClients(devKubeconfig);
    const prod = localClusterClients(prodConfig);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;

    async function service(id: string) {
      return (await http.get(`/api/gpu/services/${id}`).expect(200)).body;
    }

    async function ready(id: string) {
      return eventually(
        `service ${id} ready`,
        async () => {
          const body = await service(id);
          if (body.status === 'failed') {
            throw new Error(`failed: ${body.statusReason}`);
          }
          return body.status === 'ready' ? body : undefined;
        },
        { timeoutMs: 120_000 },
      );
    }

    /** Kueue on `clients`' cluster admitted the service's pod on its pool, and the pod runs on a kwok node of it. */
    async function expectAdmittedOn(
      clients: LocalClusterClients,
      name: string,
      pool: string,
    ) {
      const pods = await podsOf(clients, NAMESPACE, name);
      expect(pods).toHaveLength(1);
      const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
      expect(workloads).toHaveLength(1);
      expect(workloads[0].status?.admission?.clusterQueue).toBe(`gpu-${TEAM}`);
      expect(hasCondition(workloads[0].status?.conditions, 'Admitted')).toBe(
        true,
      );
      const flavors = Object.values(
        workloads[0].status?.admission?.podSetAssignments[0].flavors ?? {},
      );
      expect(flavors).toContain(pool);
      expect(pods[0].spec?.nodeName).toMatch(new RegExp(`^kwok-${pool}-\\d+$`));
      expect(pods[0].status?.phase).toBe('Running');
    }

    /** Removes what an earlier run left in the suite's namespace on one cluster (Deployments, Jobs and their pods). */
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
      await eventually('no pod left from an earlier run', async () =>
        (
          await clients.core.listNamespacedPod({ namespace: NAMESPACE })
        ).items.length === 0
          ? true
          : undefined,
      );
    }

    beforeAll(async () => {
      await createNamespaces(dev, [NAMESPACE]);
      await createNamespaces(prod, [NAMESPACE]);
      await clean(dev);
      await clean(prod);
      const started = await startLocalClusterBackend({
        kubeconfig: devKubeconfig,
        groups: [TEAM],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { [PROD_POOL]: 2, [DEV_POOL]: 2 },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          // prod-eu first: the first cluster is where a pool without one would go, so dev's work shows routing by pool.
          clusters: [
            { name: 'prod-eu', mode: 'apply', kubeconfig: prodConfig },
            { name: 'dev', mode: 'apply', kubeconfig: devKubeconfig },
          ],
          pools: demoPlatformConfig.pools.map(pool => ({
            ...pool,
            cluster: pool.name === PROD_POOL ? 'prod-eu' : 'dev',
          })),
          environments: [
            { name: 'dev', clusters: ['dev'] },
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
      await clusterComponent(prodConfig, 'start', 'kube-apiserver').catch(
        () => {},
      );
      await stop?.();
      await clean(dev).catch(() => undefined);
      await clean(prod).catch(() => undefined);
    });

    let devId: string;
    let prodId: string;

    it('puts a dev service on dev and a production service on prod-eu, each admitted by its own Kueue on its kwok GPU nodes', async () => {
      const devCreated = await http
        .post('/api/gpu/services')
        .send({
          request: smallServiceRequest({
            name: 'fleet-dev',
            team: TEAM,
            namespace: NAMESPACE,
            tier: 'dedicated',
            pool: DEV_POOL,
          }),
        })
        .expect(201);
      devId = devCreated.body.id;
      expect(devCreated.body.cluster).toBe('dev');
      expect(
        devCreated.body.annotations['backstage.io/kubernetes-cluster'],
      ).toBe('dev');
      const prodCreated = await http
        .post('/api/gpu/services')
        .send({
          request: smallServiceRequest({
            name: 'fleet-prod',
            team: TEAM,
            namespace: NAMESPACE,
            tier: 'dedicated',
            environment: 'production',
          }),
        })
        .expect(201);
      prodId = prodCreated.body.id;
      expect(prodCreated.body.cluster).toBe('prod-eu');
      expect(prodCreated.body.placement.pool).toBe(PROD_POOL);

      await ready(devId);
      await ready(prodId);
      await expectAdmittedOn(dev, 'fleet-dev', DEV_POOL);
      await expectAdmittedOn(prod, 'fleet-prod', PROD_POOL);
      // Each lives on its own cluster only.
      expect(await deploymentsNamed(prod, 'fleet-dev')).toBe(0);
      expect(await deploymentsNamed(dev, 'fleet-prod')).toBe(0);
      // Kueue objects only where the team has quota: each cluster's ClusterQueue has only that cluster's pool.
      for (const [clients, pool, other] of [
        [dev, DEV_POOL, PROD_POOL],
        [prod, PROD_POOL, DEV_POOL],
      ] as const) {
        const queue = (await clients.custom.getClusterCustomObject({
          group: 'kueue.x-k8s.io',
          version: 'v1beta2',
          plural: 'clusterqueues',
          name: `gpu-${TEAM}`,
        })) as {
          spec: { resourceGroups: Array<{ flavors: Array<{ name: string }> }> };
        };
        const flavors = queue.spec.resourceGroups.flatMap(g =>
          g.flavors.map(f => f.name),
        );
        expect(flavors).toContain(pool);
        expect(flavors).not.toContain(other);
      }
    });

    it('refuses a production request on a pool of the dev cluster (400)', async () => {
      const res = await http
        .post('/api/gpu/services')
        .send({
          request: smallServiceRequest({
            name: 'fleet-prod-on-dev',
            team: TEAM,
            namespace: NAMESPACE,
            tier: 'dedicated',
            pool: DEV_POOL,
            environment: 'production',
          }),
        })
        .expect(400);
      expect(res.body.error.message).toContain(
        'Environment production may not run on cluster dev',
      );
    });

    it('moves a staging service from dev to prod-eu as a change: prod-eu first, dev removed once prod-eu is available, served on one cluster or the other throughout', async () => {
      /** Whether the cluster has the service's Deployment with an available replica. */
      const availableOn = async (clients: LocalClusterClients) => {
        const list = await clients.apps.listNamespacedDeployment({
          namespace: NAMESPACE,
        });
        const deployment = list.items.find(
          d => d.metadata?.name === 'fleet-move',
        );
        return (deployment?.status?.availableReplicas ?? 0) > 0;
      };
      const created = await http
        .post('/api/gpu/services')
        .send({
          request: smallServiceRequest({
            name: 'fleet-move',
            team: TEAM,
            namespace: NAMESPACE,
            tier: 'dedicated',
            pool: DEV_POOL,
            environment: 'staging',
          }),
        })
        .expect(201);
      const id = created.body.id;
      expect(created.body.cluster).toBe('dev');
      await ready(id);
      await expectAdmittedOn(dev, 'fleet-move', DEV_POOL);
      expect(await deploymentsNamed(prod, 'fleet-move')).toBe(0);

      const quota = async () =>
        (await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200)).body;
      const quotaBefore = await quota();
      const changed = await http
        .patch(`/api/gpu/services/${id}`)
        .send({ pool: PROD_POOL });
      const quotaAfter = await quota();
      expect(`${changed.status} ${changed.body.error?.message ?? ''}`).toBe(
        '200 ',
      );
      expect(changed.body).toMatchObject({
        cluster: 'prod-eu',
        movingFrom: 'dev',
        placement: { pool: PROD_POOL },
      });
      expect(
        changed.body.conditions.find(
          (c: { type: string }) => c.type === 'Moving',
        ),
      ).toMatchObject({ status: 'True', reason: 'MoveWaitingForTarget' });
      expect(changed.body.annotations['backstage.io/kubernetes-cluster']).toBe(
        'prod-eu',
      );

      // Until the move is done, some cluster serves it at every look: dev until prod-eu is available.
      const samples: Array<{ dev: boolean; prod: boolean; moving: boolean }> =
        [];
      const moved = await eventually(
        'the move to prod-eu done',
        async () => {
          const body = await service(id);
          if (body.status === 'failed') {
            throw new Error(`failed: ${body.statusReason}`);
          }
          samples.push({
            dev: await availableOn(dev),
            prod: await availableOn(prod),
            moving: body.movingFrom !== undefined,
          });
          return body.status === 'ready' && body.movingFrom === undefined
            ? body
            : undefined;
        },
        { timeoutMs: 120_000 },
      );
      expect(samples.filter(s => s.moving).length).toBeGreaterThan(0);
      for (const sample of samples.filter(s => s.moving)) {
        expect(sample.dev || sample.prod).toBe(true);
      }
      expect(moved.cluster).toBe('prod-eu');
      expect(moved.reason).toBe('Available');
      expect(
        moved.conditions.find((c: { type: string }) => c.type === 'Moving'),
      ).toBeUndefined();
      await expectAdmittedOn(prod, 'fleet-move', PROD_POOL);
      await eventually(
        'no fleet-move Deployment or pod left on dev',
        async () =>
          (await deploymentsNamed(dev, 'fleet-move')) === 0 &&
          (
            await dev.core.listNamespacedPod({ namespace: NAMESPACE })
          ).items.every(p => !p.metadata?.name?.startsWith('fleet-move'))
            ? true
            : undefined,
        { timeoutMs: 60_000 },
      );
      expect(await deploymentsNamed(prod, 'fleet-move')).toBe(1);
      // The reservation moved with it at the change: one more GPU held on prod-eu's pool, one fewer on dev's.
      expect(quotaAfter.reservedGpuEquivalents[PROD_POOL]).toBe(
        (quotaBefore.reservedGpuEquivalents[PROD_POOL] ?? 0) + 1,
      );
      expect(quotaAfter.reservedGpuEquivalents[DEV_POOL] ?? 0).toBe(
        quotaBefore.reservedGpuEquivalents[DEV_POOL] - 1,
      );
      // Deleted: it is gone from prod-eu too, and dev's quota is free for the batch work below.
      await http.delete(`/api/gpu/services/${id}`).expect(200);
      await eventually(
        'fleet-move deleted',
        async () =>
          (await service(id)).status === 'deleted' ? true : undefined,
        { timeoutMs: 60_000 },
      );
      expect(await deploymentsNamed(prod, 'fleet-move')).toBe(0);
    });

    it('runs a batch Job on its pool’s cluster (dev, not the first cluster), admitted by that cluster’s Kueue, and reads it back from there', async () => {
      const submitted = await http.post('/api/gpu/batch-jobs').send({
        request: {
          name: 'fleet-ocr',
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
      expect(`${submitted.status} ${submitted.body.error?.message ?? ''}`).toBe(
        '201 ',
      );
      expect(submitted.body.mode).toBe('apply');
      const jobs = async (clients: LocalClusterClients) =>
        (
          await clients.kc
            .makeApiClient(BatchV1Api)
            .listNamespacedJob({ namespace: NAMESPACE })
        ).items.filter(j => j.metadata?.name === 'fleet-ocr').length;
      expect(await jobs(dev)).toBe(1);
      expect(await jobs(prod)).toBe(0);
      const admitted = await eventually(
        'the batch Job admitted on dev',
        async () => {
          const res = await http
            .get(`/api/gpu/batch-jobs/${NAMESPACE}/fleet-ocr`)
            .expect(200);
          return ['admitted', 'finished'].includes(res.body.workload?.state)
            ? res.body
            : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(admitted.cluster).toBe('dev');
      expect(admitted.workload.podSets[0].flavors['nvidia.com/gpu']).toBe(
        DEV_POOL,
      );
    });

    it('with prod-eu stopped, its service is ClusterUnreachable while dev keeps reconciling; back, it is Available with no duplicate', async () => {
      const watchesBefore = await openWatches(prodConfig);
      await clusterComponent(prodConfig, 'stop', 'kube-apiserver');
      try {
        const unreachable = await eventually(
          'the production service marked ClusterUnreachable',
          async () => {
            const body = await service(prodId);
            return body.reason === 'ClusterUnreachable' ? body : undefined;
          },
          { timeoutMs: 90_000 },
        );
        expect(unreachable.status).toBe('starting');
        const available = unreachable.conditions.find(
          (c: { type: string }) => c.type === 'Available',
        );
        expect(available.status).toBe('Unknown');
        // Dev keeps reconciling: its Deployment deleted by hand is repaired and the service is ready again.
        await dev.apps.deleteNamespacedDeployment({
          name: 'fleet-dev',
          namespace: NAMESPACE,
        });
        await eventually(
          'the dev Deployment repaired',
          async () =>
            (await deploymentsNamed(dev, 'fleet-dev')) === 1 ? true : undefined,
          { timeoutMs: 90_000 },
        );
        await ready(devId);
      } finally {
        await clusterComponent(prodConfig, 'start', 'kube-apiserver');
      }
      const back = await ready(prodId);
      expect(back.reason).toBe('Available');
      expect(await deploymentsNamed(prod, 'fleet-prod')).toBe(1);
      expect(await deploymentsNamed(dev, 'fleet-prod')).toBe(0);
      expect((await podsOf(prod, NAMESPACE, 'fleet-prod')).length).toBe(1);
      // The suites after this one (MultiKueue's among them) use prod-eu: its controllers' watches back first.
      await untilWatchesReturn(prodConfig, watchesBefore);
    });
  },
);
