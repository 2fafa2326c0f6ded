import { FIELD_MANAGER } from '@gpu-platform/backstage-plugin-gpu-node';
import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { V1Deployment, V1PodTemplateSpec } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  podsOf,
  reconcileNow,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';
import { schedulerCapture } from './__testUtils__/schedulerCapture';

jest.setTimeout(180_000);

const TEAM = 'cluster-kueue';
const NAMESPACE = 'cluster-kueue';
const CLUSTER_QUEUE = `gpu-${TEAM}`;
const KUEUE = { group: 'kueue.x-k8s.io', version: 'v1beta2' };

/** A dedicated H100. The suite's ClusterQueue is alone in its cohort (see `startLocalClusterBackend`): nothing lends it quota. */
const onH100: ServiceRequest = {
  name: 'big-chat',
  team: TEAM,
  namespace: NAMESPACE,
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 8,
  replicas: 1,
  environment: 'dev',
  tier: 'dedicated',
  pool: 'h100',
};

const onL4: ServiceRequest = {
  ...onH100,
  name: 'small-chat',
  model: 'llama-3.2-3b',
  pool: 'l4-ondemand',
};

type KueueWorkloadView = Awaited<ReturnType<typeof workloadsOfPods>>[number];

type Http = Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];

interface ClusterQueueObject {
  metadata: {
    resourceVersion?: string;
    generation?: number;
    managedFields?: Array<{
      manager?: string;
      operation?: string;
      time?: string;
    }>;
  };
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
  'Kueue quota, drift and teardown on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const capture = schedulerCapture();
    let http: Http;
    let stop: () => Promise<void>;

    /** Services a test created, deleted after it whatever its outcome, so one failure does not hold the next test's quota. */
    const created: string[] = [];

    async function createService(request: ServiceRequest): Promise<string> {
      const res = await http
        .post('/api/gpu/services')
        .send({ request })
        .expect(201);
      created.push(res.body.id);
      return res.body.id;
    }

    async function readyService(request: ServiceRequest) {
      const id = await createService(request);
      return eventually(`service ${request.name} ready`, async () => {
        const res = await http.get(`/api/gpu/services/${id}`).expect(200);
        if (res.body.status === 'ready') return res.body;
        throw new Error(
          `${res.body.status}: ${res.body.statusReason} ${JSON.stringify(
            res.body.clusterStatus,
          )}`,
        );
      });
    }

    async function deleteService(id: string) {
      const res = await http.delete(`/api/gpu/services/${id}`).expect(200);
      expect(['deleting', 'deleted']).toContain(res.body.status);
      // Like a finalizer: deleted, and its quota released, once the cluster has confirmed the objects are gone.
      await eventually(`service ${id} deleted`, async () => {
        const after = await http.get(`/api/gpu/services/${id}`).expect(200);
        return after.body.status === 'deleted' ? true : undefined;
      });
    }

    async function readClusterQueue(): Promise<ClusterQueueObject> {
      return (await clients.custom.getClusterCustomObject({
        ...KUEUE,
        plural: 'clusterqueues',
        name: CLUSTER_QUEUE,
      })) as ClusterQueueObject;
    }

    async function replaceOnConflictRetry(edit: () => Promise<void>) {
      for (let attempt = 1; ; attempt++) {
        try {
          await edit();
          return;
        } catch (error) {
          const conflict = (error as { code?: number }).code === 409;
          if (!conflict || attempt === 5) throw error;
        }
      }
    }

    const reconcileAndReport = () => reconcileNow(http, capture.scheduler());

    beforeAll(async () => {
      await createNamespaces(clients, [NAMESPACE]);
      // What an earlier run may have left.
      await clients.apps.deleteCollectionNamespacedDeployment({
        namespace: NAMESPACE,
      });
      const started = await startLocalClusterBackend({
        kubeconfig,
        groups: [TEAM, 'platform-team'],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { h100: 1, 'l4-ondemand': 1 },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          statusRefresh: { frequency: { seconds: 1 } },
          reconcile: { frequency: { hours: 1 } },
        },
        features: [capture.module],
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterEach(async () => {
      for (const id of created.splice(0)) {
        await http.delete(`/api/gpu/services/${id}`);
      }
      await clients.apps
        .deleteNamespacedDeployment({
          name: 'quota-holder',
          namespace: NAMESPACE,
        })
        .catch(() => undefined);
    });

    afterAll(async () => {
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
      await stop?.();
    });

    it('keeps a service pending while Kueue has no quota for it, shows Kueue’s reason, and runs it once quota frees', async () => {
      // The team's queues, as the reconciler keeps them.
      await reconcileAndReport();
      // A workload submitted to the team's queue outside Backstage holds the team's only H100.
      const preview = await http
        .post('/api/gpu/services')
        .send({ request: { ...onH100, name: 'quota-holder' }, dryRun: true })
        .expect(200);
      const rendered = (preview.body.manifests as V1Deployment[]).find(
        m => m.kind === 'Deployment',
      )!;
      const template = structuredClone(
        rendered.spec!.template,
      ) as V1PodTemplateSpec;
      const queueLabel = 'kueue.x-k8s.io/queue-name';
      // With the service's priority class: a lower one would be preempted by the service (Kueue does so within a queue).
      const priorityLabel = 'kueue.x-k8s.io/priority-class';
      template.metadata = {
        labels: {
          app: 'quota-holder',
          [queueLabel]: template.metadata!.labels![queueLabel],
          [priorityLabel]: template.metadata!.labels![priorityLabel],
        },
      };
      template.spec!.volumes = undefined;
      template.spec!.initContainers = undefined;
      for (const container of template.spec!.containers) {
        container.volumeMounts = undefined;
      }
      await clients.apps.createNamespacedDeployment({
        namespace: NAMESPACE,
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'quota-holder',
            labels: { [queueLabel]: template.metadata.labels![queueLabel] },
          },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'quota-holder' } },
            template,
          },
        },
      });
      await eventually('the quota holder admitted', async () => {
        const pods = await podsOf(clients, NAMESPACE, 'quota-holder');
        const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
        return workloads.some(w =>
          hasCondition(w.status?.conditions, 'Admitted'),
        )
          ? true
          : undefined;
      });

      const id = await createService(onH100);

      // Kueue refuses: the pod stays gated and the product says why, in Kueue's words.
      const pending = await eventually(
        'Kueue’s reason on the service',
        async () => {
          const res = await http.get(`/api/gpu/services/${id}`).expect(200);
          if (/insufficient unused quota/i.test(JSON.stringify(res.body))) {
            return res.body;
          }
          const all = await clients.custom.listNamespacedCustomObject({
            ...KUEUE,
            namespace: NAMESPACE,
            plural: 'workloads',
          });
          throw new Error(
            `last seen: ${res.body.status} ${JSON.stringify(
              res.body.clusterStatus,
            )}; workloads: ${JSON.stringify(
              (all as { items: KueueWorkloadView[] }).items.map(w => [
                w.metadata.name,
                w.status?.admission,
                w.status?.conditions?.map(
                  c => `${c.type}=${c.status} ${c.message}`,
                ),
              ]),
            )}`,
          );
        },
      );
      expect(pending.status).not.toBe('ready');
      const pods = await podsOf(clients, NAMESPACE, onH100.name);
      expect(pods).toHaveLength(1);
      expect(pods[0].spec?.schedulingGates?.map(g => g.name)).toContain(
        'kueue.x-k8s.io/admission',
      );
      expect(pods[0].spec?.nodeName).toBeUndefined();
      const [workload] = await workloadsOfPods(clients, NAMESPACE, pods);
      const reserved = workload.status?.conditions?.find(
        c => c.type === 'QuotaReserved',
      );
      expect(reserved?.status).toBe('False');
      expect(JSON.stringify(pending)).toContain(
        reserved!.message!.split(',')[0],
      );

      // The holder goes away; Kueue admits the service and it becomes ready.
      await clients.apps.deleteNamespacedDeployment({
        name: 'quota-holder',
        namespace: NAMESPACE,
      });
      await eventually('the service ready', async () => {
        const res = await http.get(`/api/gpu/services/${id}`).expect(200);
        return res.body.status === 'ready' ? true : undefined;
      });
      await deleteService(id);
    });

    it('re-applies an unchanged service without changing any object, and teardown deletes exactly its own objects', async () => {
      const first = await readyService(onL4);
      const second = await readyService({
        ...onL4,
        name: 'other-chat',
        pool: 'h100',
      });
      const owned = (
        manifests: Array<{ kind: string; metadata: { name: string } }>,
      ) =>
        manifests.filter(m =>
          ['Deployment', 'Service', 'PersistentVolumeClaim'].includes(m.kind),
        );
      const versions = async (
        manifests: Array<{ kind: string; metadata: { name: string } }>,
      ) =>
        Promise.all(
          owned(manifests).map(async m => {
            const read = {
              Deployment: () =>
                clients.apps.readNamespacedDeployment({
                  name: m.metadata.name,
                  namespace: NAMESPACE,
                }),
              Service: () =>
                clients.core.readNamespacedService({
                  name: m.metadata.name,
                  namespace: NAMESPACE,
                }),
              PersistentVolumeClaim: () =>
                clients.core.readNamespacedPersistentVolumeClaim({
                  name: m.metadata.name,
                  namespace: NAMESPACE,
                }),
            }[m.kind as 'Deployment' | 'Service' | 'PersistentVolumeClaim'];
            const live = await read();
            return `${m.kind}/${m.metadata.name}@${live.metadata?.resourceVersion}`;
          }),
        );
      const before = await versions(first.manifests);
      expect(before).toHaveLength(3);

      // The same change again: every object is applied once more, and the API server records no change.
      const again = await http
        .patch(`/api/gpu/services/${first.id}`)
        .send({ replicas: 1 })
        .expect(200);
      expect(again.body.status).not.toBe('failed');
      await eventually('the re-applied service ready', async () => {
        const res = await http.get(`/api/gpu/services/${first.id}`).expect(200);
        return res.body.status === 'ready' ? true : undefined;
      });
      expect(await versions(first.manifests)).toEqual(before);

      // Teardown of the first removes its objects only.
      const listOwned = {
        Deployment: () =>
          clients.apps.listNamespacedDeployment({ namespace: NAMESPACE }),
        Service: () =>
          clients.core.listNamespacedService({ namespace: NAMESPACE }),
        PersistentVolumeClaim: () =>
          clients.core.listNamespacedPersistentVolumeClaim({
            namespace: NAMESPACE,
          }),
      };
      const otherBefore = await versions(second.manifests);
      await deleteService(first.id);
      for (const m of owned(first.manifests)) {
        await eventually(`${m.kind}/${m.metadata.name} gone`, async () => {
          const list = await listOwned[
            m.kind as 'Deployment' | 'Service' | 'PersistentVolumeClaim'
          ]();
          return list.items.some(
            (item: {
              metadata?: { name?: string; deletionTimestamp?: Date };
            }) =>
              item.metadata?.name === m.metadata.name &&
              !item.metadata?.deletionTimestamp,
          )
            ? undefined
            : true;
        });
      }
      expect(await versions(second.manifests)).toEqual(otherBefore);
      // The team's queues are not the service's.
      await readClusterQueue();
      await clients.custom.getNamespacedCustomObject({
        ...KUEUE,
        namespace: NAMESPACE,
        plural: 'localqueues',
        name: `gpu-${TEAM}`,
      });
      await deleteService(second.id);
    });

    it('reports nothing to repair when nothing changed, and repairs a ClusterQueue edited or deleted behind its back', async () => {
      // The first pass creates what no service has needed yet (the flavors of other pools, say).
      const first = await reconcileAndReport();
      expect(first).toMatchObject({ checked: true, applied: true });
      expect(
        first.drifted.filter((d: { state: string }) => d.state !== 'missing'),
      ).toEqual([]);
      const inSync = await reconcileAndReport();
      expect(inSync).toMatchObject({
        checked: true,
        applied: true,
        inSync: true,
      });
      expect(inSync.drifted).toEqual([]);
      const untouched = await readClusterQueue();
      const again = await reconcileAndReport();
      expect(again.inSync).toBe(true);
      // Kueue writes the queue's status at any time (a new resourceVersion), so "no write of ours" is: the spec's
      // generation and our field manager's entry are as they were.
      const ours = (q: ClusterQueueObject) =>
        q.metadata.managedFields?.filter(f => f.manager === FIELD_MANAGER);
      const after = await readClusterQueue();
      expect(after.metadata.generation).toBe(untouched.metadata.generation);
      expect(ours(after)).toEqual(ours(untouched));
      expect(ours(after)).toHaveLength(1);

      // Someone raises the H100 quota with kubectl. Kueue writes the
      // ClusterQueue's status meanwhile, so the edit retries on a conflict
      // with a fresh read, as kubectl edit and client-go's RetryOnConflict do.
      await replaceOnConflictRetry(async () => {
        const edited = await readClusterQueue();
        for (const group of edited.spec.resourceGroups) {
          for (const flavor of group.flavors) {
            if (flavor.name !== 'h100') continue;
            for (const resource of flavor.resources) {
              if (resource.name === 'nvidia.com/gpu') {
                resource.nominalQuota = '5';
              }
            }
          }
        }
        await clients.custom.replaceClusterCustomObject({
          ...KUEUE,
          plural: 'clusterqueues',
          name: CLUSTER_QUEUE,
          body: edited,
        });
      });
      const repaired = await reconcileAndReport();
      expect(repaired.inSync).toBe(false);
      expect(repaired.drifted).toEqual([
        expect.objectContaining({
          kind: 'ClusterQueue',
          name: CLUSTER_QUEUE,
          state: 'changed',
        }),
      ]);
      const h100 = (await readClusterQueue()).spec.resourceGroups
        .flatMap(g => g.flavors)
        .find(f => f.name === 'h100')!;
      expect(
        String(
          h100.resources.find(r => r.name === 'nvidia.com/gpu')!.nominalQuota,
        ),
      ).toBe('1');

      // Someone deletes it.
      await clients.custom.deleteClusterCustomObject({
        ...KUEUE,
        plural: 'clusterqueues',
        name: CLUSTER_QUEUE,
      });
      await eventually('the ClusterQueue gone', async () => {
        try {
          await readClusterQueue();
          return undefined;
        } catch (error) {
          return (error as { code?: number }).code === 404 ? true : undefined;
        }
      });
      const recreated = await reconcileAndReport();
      expect(recreated.drifted).toEqual([
        expect.objectContaining({ kind: 'ClusterQueue', state: 'missing' }),
      ]);
      await readClusterQueue();
      expect((await reconcileAndReport()).inSync).toBe(true);
    });
  },
);
