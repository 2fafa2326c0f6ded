import {
  demoPlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  hasCondition,
  KueueWorkload,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';

jest.setTimeout(180_000);

const TEAM = 'cluster-mig-units';
const NAMESPACE = 'cluster-mig-units';
const KUEUE = { group: 'kueue.x-k8s.io', version: 'v1beta2' };
const GPU_UNITS = 'gpu.backstage.io/gpu-units';

/**
 * A MIG pool laid out like the demo's a100-mig (2 x 1g.10gb + 2g.20gb + 3g.40gb per A100-80GB), so its profiles
 * weigh what the local cluster's Kueue transformations say (1g.10gb: 672 GPU units), but a flavor of its own: no
 * other suite's team has quota on it, so nothing in the cohort can lend it. It has no nodes: Kueue admits on quota
 * alone, and admission is what this suite checks.
 */
const demoMig = demoPlatformConfig.pools.find(p => p.name === 'a100-mig')!;
const POOL = 'a100-mig-units';
const pool = {
  ...demoMig,
  name: POOL,
  nodeLabels: { ...demoMig.nodeLabels, 'gpu.example.com/pool': POOL },
};

/** Two 1g.10gb: 2 x 672 = 1344 GPU units. */
const QUOTA_UNITS = 2 * 672;

const twoSlices: ServiceRequest = smallServiceRequest({
  name: 'mig-pair',
  team: TEAM,
  namespace: NAMESPACE,
  tier: 'mig',
  pool: POOL,
  replicas: 2,
});

interface ClusterQueueView {
  metadata: { annotations?: Record<string, string> };
  spec: {
    resourceGroups: Array<{
      flavors: Array<{
        name: string;
        resources: Array<{ name: string; nominalQuota: string | number }>;
      }>;
    }>;
  };
}

describeOnLocalCluster(
  'Kueue counts MIG slices in GPU units on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;
    const created: string[] = [];

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
            gpuQuota: { [POOL]: QUOTA_UNITS / 5040 },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          pools: [...demoPlatformConfig.pools, pool],
          statusRefresh: { frequency: { seconds: 1 } },
        },
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      for (const id of created.splice(0)) {
        await http.delete(`/api/gpu/services/${id}`);
      }
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
      await stop?.();
    });

    async function admittedWorkloads(
      deployment: string,
    ): Promise<KueueWorkload[]> {
      const pods = await podsOf(clients, NAMESPACE, deployment);
      const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
      return workloads.filter(w =>
        hasCondition(w.status?.conditions, 'Admitted'),
      );
    }

    it('admits a MIG service within its units quota and keeps one more slice pending in Kueue', async () => {
      const res = await http
        .post('/api/gpu/services')
        .send({ request: twoSlices })
        .expect(201);
      created.push(res.body.id);
      expect(res.body.placement).toMatchObject({
        pool: POOL,
        migProfile: '1g.10gb',
      });

      // The team's ClusterQueue: the allowance's units as the flavor's quota of the GPU-units resource.
      const queue = await eventually(
        'the team ClusterQueue',
        async () =>
          (await clients.custom.getClusterCustomObject({
            ...KUEUE,
            plural: 'clusterqueues',
            name: `gpu-${TEAM}`,
          })) as ClusterQueueView,
      );
      const flavor = queue.spec.resourceGroups
        .flatMap(g => g.flavors)
        .find(f => f.name === POOL)!;
      expect(flavor.resources).toEqual([
        { name: GPU_UNITS, nominalQuota: String(QUOTA_UNITS) },
      ]);
      expect(queue.metadata.annotations?.['gpu.backstage.io/mig-quota']).toBe(
        `${POOL}: ${QUOTA_UNITS} ${GPU_UNITS} (1g.10gb weighs 672, 2g.20gb weighs 1344, 3g.40gb weighs 2352)`,
      );

      // Both replicas are admitted: 2 x 672 = 1344 units, exactly the quota.
      const name = twoSlices.name;
      await eventually('both replicas admitted', async () =>
        (await admittedWorkloads(name)).length === 2 ? true : undefined,
      );

      // One more 1g.10gb, submitted to the team's queue outside Backstage (the store would ask for approval first):
      // 1344 + 672 > 1344, so Kueue keeps it waiting for GPU units.
      const preview = await http
        .post('/api/gpu/services')
        .send({
          request: { ...twoSlices, name: 'mig-extra', replicas: 1 },
          dryRun: true,
        })
        .expect(200);
      const rendered = (preview.body.manifests as V1Deployment[]).find(
        m => m.kind === 'Deployment',
      )!;
      const template = structuredClone(
        rendered.spec!.template,
      ) as V1PodTemplateSpec;
      const queueLabel = 'kueue.x-k8s.io/queue-name';
      const priorityLabel = 'kueue.x-k8s.io/priority-class';
      template.metadata = {
        labels: {
          app: 'mig-extra',
          [queueLabel]: template.metadata!.labels![queueLabel],
          [priorityLabel]: template.metadata!.labels![priorityLabel],
        },
      };
      template.spec!.volumes = undefined;
      template.spec!.initContainers = undefined;
      for (const container of template.spec!.containers) {
        container.volumeMounts = undefined;
      }
      expect(
        template.spec!.containers[0].resources?.limits?.[
          'nvidia.com/mig-1g.10gb'
        ],
      ).toBe('1');
      await clients.apps.createNamespacedDeployment({
        namespace: NAMESPACE,
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'mig-extra',
            labels: { [queueLabel]: template.metadata.labels![queueLabel] },
          },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'mig-extra' } },
            template,
          },
        },
      });
      const reserved = await eventually(
        'Kueue refusing the extra slice',
        async () => {
          const pods = await podsOf(clients, NAMESPACE, 'mig-extra');
          const [workload] = await workloadsOfPods(clients, NAMESPACE, pods);
          const condition = workload?.status?.conditions?.find(
            c => c.type === 'QuotaReserved',
          );
          return condition?.status === 'False' &&
            /insufficient unused quota/i.test(condition.message ?? '')
            ? condition
            : undefined;
        },
      );
      expect(reserved.message).toContain(GPU_UNITS);
      const pods = await podsOf(clients, NAMESPACE, 'mig-extra');
      expect(pods[0].spec?.schedulingGates?.map(g => g.name)).toContain(
        'kueue.x-k8s.io/admission',
      );
      // The service's two replicas stay admitted.
      expect(await admittedWorkloads(name)).toHaveLength(2);
    });
  },
);
