import { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { AutoscalingV2Api, KubernetesObject } from '@kubernetes/client-node';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';
import {
  PrivatePostgres,
  startPrivatePostgres,
} from './__testUtils__/privatePostgres';
import {
  openWatches,
  untilWatchesReturn,
} from './__testUtils__/apiServerWatches';
import { clusterComponent } from './__testUtils__/clusterComponent';

/**
 * The reconciler's loop against faults of the local control plane, with nobody retrying by hand: the API server or
 * Kueue away for half a minute, objects changed behind the product's back, a watch cut, PostgreSQL restarted.
 *
 * Statuses are read from the service list, which only reads the store: `GET /services/:id` reads the cluster and
 * repairs drift itself, and the test backend's scheduler runs no periodic resync on its own, so what moves a service
 * here is the loop alone (writes, the watches of its objects, retries with backoff).
 */

jest.setTimeout(900_000);

const TEAM = 'cluster-loop';
const NAMESPACE = 'cluster-loop';
/**
 * Longest wait for every service to settle after a fault ends. The product's part is quick (its apply retries back off
 * up to 30 s, its watches up to 10 s); the rest is the cluster's own controllers catching up: their watches back off
 * up to a minute, and the ReplicaSet controller's retries of pods the stopped Kueue webhook refused back off
 * exponentially (about as long again as the webhook was away).
 */
const SETTLE_MS = 300_000;

type Http = Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];

interface ServiceView {
  id: string;
  name: string;
  status: string;
  reason?: string;
  statusReason?: string;
}

function request(name: string, pool: string): ServiceRequest {
  return smallServiceRequest({
    name,
    team: TEAM,
    namespace: NAMESPACE,
    tier: 'dedicated',
    pool,
  });
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

describeOnLocalCluster(
  'the reconciler loop on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    let http: Http;
    let stop: (() => Promise<void>) | undefined;
    const figures: Record<string, number> = {};

    async function start(
      config?: Parameters<typeof startLocalClusterBackend>[0]['config'],
    ) {
      const started = await startLocalClusterBackend({
        kubeconfig,
        groups: [TEAM],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { 'spot-l4': 4, 'l4-ondemand': 4 },
            monthlyBudget: '100000',
          },
        ],
        config,
      });
      http = started.http;
      stop = () => started.backend.stop();
    }

    /** The team's services as stored (the list reads no cluster). */
    async function stored(): Promise<Map<string, ServiceView>> {
      const res = await http
        .get(`/api/gpu/services?team=${TEAM}&limit=200`)
        .expect(200);
      return new Map(
        (res.body.items as ServiceView[]).map(s => [s.id, s] as const),
      );
    }

    /** GPU equivalents the team holds per pool (pools holding none left out). */
    async function reserved(): Promise<Record<string, number>> {
      const quota = await http.get(`/api/gpu/teams/${TEAM}/quota`).expect(200);
      return Object.fromEntries(
        Object.entries(
          quota.body.reservedGpuEquivalents as Record<string, number>,
        ).filter(([, held]) => held !== 0),
      );
    }

    async function create(
      name: string,
      pool: string,
      fields: Partial<ServiceRequest> = {},
    ): Promise<string> {
      const res = await http
        .post('/api/gpu/services')
        .send({
          request: { ...request(name, pool), ...fields },
          requestKey: `${name}-key`,
        })
        .expect(201);
      return res.body.id;
    }

    /**
     * What the cluster shows of one service's Deployment: ready replicas, each pod's phase, scheduling gates and node,
     * and whether Kueue admitted its Workload; so a wait that times out says whether the product or the cluster's own
     * controllers were behind.
     */
    async function liveState(name: string): Promise<string> {
      try {
        const deployment = await liveDeployment(name);
        if (!deployment) return `${name}: no Deployment`;
        const pods = await podsOf(clients, NAMESPACE, name);
        const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
        const podStates = pods.map(pod => {
          const gates = pod.spec?.schedulingGates?.length ? ' gated' : '';
          const node = pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : '';
          const workload = workloads.find(w =>
            w.metadata.ownerReferences?.some(
              o => o.name === pod.metadata?.name,
            ),
          );
          let admitted = ' no workload';
          if (workload) {
            admitted = workload.status?.admission
              ? ' admitted'
              : ' not admitted';
          }
          return `${pod.status?.phase}${gates}${node}${admitted}`;
        });
        return `${name}: ${deployment.status?.readyReplicas ?? 0}/${
          deployment.spec?.replicas
        } ready, pods [${podStates.join(', ')}]`;
      } catch (error) {
        return `${name}: unreadable (${String(error)})`;
      }
    }

    /** Waits until every service is `ready` and every deleted one `deleted`, as stored; fails saying what it saw. */
    async function settled(
      ready: string[],
      deleted: string[],
      timeoutMs = SETTLE_MS,
    ): Promise<void> {
      try {
        await waitSettled(ready, deleted, timeoutMs);
      } catch (error) {
        const services = await stored();
        const live = await Promise.all(
          [...ready, ...deleted].map(id =>
            liveState(services.get(id)?.name ?? id),
          ),
        );
        throw new Error(
          `${(error as Error).message}\nIn the cluster: ${live.join('; ')}`,
        );
      }
    }

    async function waitSettled(
      ready: string[],
      deleted: string[],
      timeoutMs: number,
    ): Promise<void> {
      await eventually(
        'every service ready or deleted',
        async () => {
          const services = await stored();
          const wrong = [
            ...ready.map(id => [id, 'ready'] as const),
            ...deleted.map(id => [id, 'deleted'] as const),
          ]
            .map(([id, want]) => ({ want, service: services.get(id) }))
            .filter(({ want, service }) => service?.status !== want);
          if (wrong.length === 0) return true;
          throw new Error(
            wrong
              .map(
                ({ want, service }) =>
                  `${service?.name}: ${service?.status} (${service?.reason}: ${service?.statusReason}), not ${want}`,
              )
              .join('; '),
          );
        },
        { timeoutMs, intervalMs: 500 },
      );
    }

    async function deleteAll(ids: string[]): Promise<void> {
      for (const id of ids) {
        await http.delete(`/api/gpu/services/${id}`).expect(200);
      }
      await settled([], ids);
    }

    /** Request fields of a service of one or two replicas autoscaled by `engine`. */
    function autoscaledBy(engine: 'hpa' | 'keda'): Partial<ServiceRequest> {
      return {
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 2,
          targetQueueDepth: 4,
          engine,
        },
      };
    }

    /** The object `read` answers, or undefined when the API server has none (404). */
    async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
      try {
        return await read;
      } catch (error) {
        if ((error as { code?: number }).code === 404) return undefined;
        throw error;
      }
    }

    function liveDeployment(name: string) {
      return unlessNotFound(
        clients.apps.readNamespacedDeployment({ name, namespace: NAMESPACE }),
      );
    }

    /** Waits until `read` answers the object with another UID than `before`: it was applied again. */
    async function appliedAgain(
      kind: string,
      read: () => Promise<KubernetesObject | undefined>,
      before: KubernetesObject | undefined,
      timeoutMs = 60_000,
    ): Promise<void> {
      await eventually(
        `the ${kind} applied again`,
        async () => {
          const live = await read();
          return live && live.metadata?.uid !== before?.metadata?.uid
            ? true
            : undefined;
        },
        { timeoutMs, intervalMs: 200 },
      );
    }

    beforeAll(async () => {
      await createNamespaces(clients, [NAMESPACE]);
      await clients.apps.deleteCollectionNamespacedDeployment({
        namespace: NAMESPACE,
      });
      // What an earlier run on the same cluster may have left: the API server restart below can leave the garbage
      // collector without the Deployment's deletion, and its ReplicaSet and pod (kwok's never stops) then keep the
      // model cache claim terminating, bound to a volume gone, and the next run's service of the same name pending.
      await clients.apps.deleteCollectionNamespacedReplicaSet({
        namespace: NAMESPACE,
      });
      await clients.core.deleteCollectionNamespacedPod({
        namespace: NAMESPACE,
        gracePeriodSeconds: 0,
      });
    });

    afterEach(async () => {
      await stop?.();
      stop = undefined;
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
    });

    afterAll(() => {
      // The figures of the run, for the report (time from the fault's end to every service settled).
      // eslint-disable-next-line no-console
      console.log(`Recovery figures (s): ${JSON.stringify(figures)}`);
    });

    /**
     * One existing service deleted and six created while `component` is down for `downMs`; all six become ready and the
     * deleted one is gone, with its quota released, with nobody retrying.
     */
    async function createsAndDeleteWhileDown(
      label: string,
      name: string,
      downMs: number,
    ): Promise<void> {
      await start();
      const doomed = await create(`${label}-doomed`, 'spot-l4');
      await settled([doomed], []);

      const watchesBefore = await openWatches(kubeconfig);
      await clusterComponent(kubeconfig, 'stop', name);
      const stoppedAt = Date.now();
      let ids: string[] = [];
      try {
        ids = [];
        let slowestCreateMs = 0;
        for (let i = 0; i < 3; i++) {
          for (const [kind, pool] of [
            ['spot', 'spot-l4'],
            ['ondemand', 'l4-ondemand'],
          ]) {
            const sentAt = Date.now();
            ids.push(await create(`${label}-${kind}-${i}`, pool));
            slowestCreateMs = Math.max(slowestCreateMs, Date.now() - sentAt);
          }
        }
        figures[`${label}: slowest create while down`] =
          seconds(slowestCreateMs);
        const deleting = await http
          .delete(`/api/gpu/services/${doomed}`)
          .expect(200);
        expect(deleting.body.status).toBe('deleting');
        await new Promise(r =>
          setTimeout(r, Math.max(0, downMs - (Date.now() - stoppedAt))),
        );
      } finally {
        await clusterComponent(kubeconfig, 'start', name);
      }
      const backAt = Date.now();
      // The loop's part: every apply and the teardown done (the rest is the cluster's controllers catching up).
      await eventually(
        'every service applied and the deleted one gone',
        async () => {
          const services = await stored();
          return ids.every(id =>
            ['starting', 'ready'].includes(services.get(id)?.status ?? ''),
          ) && services.get(doomed)?.status === 'deleted'
            ? true
            : undefined;
        },
        { timeoutMs: SETTLE_MS, intervalMs: 250 },
      );
      figures[`${label}: back to applied and deleted`] = seconds(
        Date.now() - backAt,
      );
      await settled(ids, [doomed]);
      figures[`${label}: down to settled`] = seconds(Date.now() - stoppedAt);
      figures[`${label}: back to settled`] = seconds(Date.now() - backAt);
      await untilWatchesReturn(kubeconfig, watchesBefore);
      figures[`${label}: back to every watch`] = seconds(Date.now() - backAt);

      // Nothing failed on the way and nothing is held twice: the six services' GPUs, the deleted one's released.
      expect(await reserved()).toEqual({ 'spot-l4': 3, 'l4-ondemand': 3 });
      expect(await liveDeployment(`${label}-doomed`)).toBeUndefined();
      await deleteAll(ids);
      expect(await reserved()).toEqual({});
    }

    it('the API server stopped for 35 s during six creates and a delete: all six become ready and the deleted one is gone, with no retry by hand', async () => {
      await expect(
        createsAndDeleteWhileDown('apiserver', 'kube-apiserver', 35_000),
      ).resolves.toBeUndefined();
    });

    it('Kueue’s controller stopped for 30 s during six creates and a delete: the same', async () => {
      await expect(
        createsAndDeleteWhileDown('kueue', 'kueue', 30_000),
      ).resolves.toBeUndefined();
    });

    it('a Deployment or Service deleted with the API is applied again, and one scaled to 4 by hand is set back to 1, through the watch', async () => {
      await start();
      const id = await create('drift', 'spot-l4');
      await settled([id], []);
      const before = await liveDeployment('drift');

      const deletedAt = Date.now();
      await clients.apps.deleteNamespacedDeployment({
        name: 'drift',
        namespace: NAMESPACE,
      });
      await appliedAgain('Deployment', () => liveDeployment('drift'), before);
      figures['Deployment deleted: to applied again'] = seconds(
        Date.now() - deletedAt,
      );
      await settled([id], []);
      figures['Deployment deleted: to ready again'] = seconds(
        Date.now() - deletedAt,
      );

      // kubectl scale: the scale subresource, written by another field manager.
      const scale = await clients.apps.readNamespacedDeploymentScale({
        name: 'drift',
        namespace: NAMESPACE,
      });
      const scaledAt = Date.now();
      await clients.apps.replaceNamespacedDeploymentScale({
        name: 'drift',
        namespace: NAMESPACE,
        fieldManager: 'kubectl',
        body: { ...scale, spec: { replicas: 4 } },
      });
      await eventually(
        'the Deployment set back to 1 replica',
        async () =>
          (await liveDeployment('drift'))?.spec?.replicas === 1
            ? true
            : undefined,
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      figures['scaled to 4: to set back to 1'] = seconds(Date.now() - scaledAt);
      // Setting it back is a rollout of its own (the extra pods terminating), during which a status read says
      // `starting`: a full run read `starting` just after the stored status had said `ready` from before it, so the
      // service's detail is awaited, not read once.
      const detail = await eventually(
        'the service ready again with its Deployment at 1 replica',
        async () => {
          const res = await http.get(`/api/gpu/services/${id}`).expect(200);
          return res.body.status === 'ready' &&
            res.body.clusterStatus?.deployment?.replicas === 1
            ? res
            : undefined;
        },
        { timeoutMs: SETTLE_MS, intervalMs: 500 },
      );
      expect(detail.body.request.replicas).toBe(1);
      expect(detail.body.clusterStatus.deployment.replicas).toBe(1);
      expect(detail.body.status).toBe('ready');

      // Its Service deleted: the Service's watch enqueues the service, whose status read finds it missing.
      const service = await clients.core.readNamespacedService({
        name: 'drift',
        namespace: NAMESPACE,
      });
      const serviceDeletedAt = Date.now();
      await clients.core.deleteNamespacedService({
        name: 'drift',
        namespace: NAMESPACE,
      });
      await appliedAgain(
        'Service',
        () =>
          unlessNotFound(
            clients.core.readNamespacedService({
              name: 'drift',
              namespace: NAMESPACE,
            }),
          ),
        service,
      );
      figures['Service deleted: to applied again'] = seconds(
        Date.now() - serviceDeletedAt,
      );
      await settled([id], []);
      await deleteAll([id]);
    });

    it('an autoscaler deleted with the API is applied again through its watch', async () => {
      await start();
      const id = await create('drift-hpa', 'spot-l4', autoscaledBy('hpa'));
      await settled([id], []);
      const autoscaling = clients.kc.makeApiClient(AutoscalingV2Api);
      const autoscalers = () =>
        autoscaling.listNamespacedHorizontalPodAutoscaler({
          namespace: NAMESPACE,
          labelSelector: `gpu.backstage.io/service-id=${id}`,
        });
      const [before] = (await autoscalers()).items;
      expect(before?.metadata?.name).toBe('drift-hpa');

      const deletedAt = Date.now();
      await autoscaling.deleteNamespacedHorizontalPodAutoscaler({
        name: 'drift-hpa',
        namespace: NAMESPACE,
      });
      await appliedAgain(
        'HorizontalPodAutoscaler',
        async () => (await autoscalers()).items[0],
        before,
      );
      figures['HorizontalPodAutoscaler deleted: to applied again'] = seconds(
        Date.now() - deletedAt,
      );
      await settled([id], []);
      await deleteAll([id]);
    });

    it('an add-on’s object, a KEDA ScaledObject, deleted with the API is applied again through its watch', async () => {
      await start();
      const id = await create('drift-keda', 'spot-l4', autoscaledBy('keda'));
      await settled([id], []);
      const scaledObjects = async () =>
        (
          (await clients.custom.listNamespacedCustomObject({
            group: 'keda.sh',
            version: 'v1alpha1',
            namespace: NAMESPACE,
            plural: 'scaledobjects',
            labelSelector: `gpu.backstage.io/service-id=${id}`,
          })) as { items: KubernetesObject[] }
        ).items[0];
      const before = await scaledObjects();
      expect(before?.metadata?.name).toBe('drift-keda');

      const deletedAt = Date.now();
      // Its dependents orphaned: the HPA KEDA made stays, so the HPA informer hears nothing, and with no periodic
      // refresh here only the ScaledObject informer's event can bring it back.
      await clients.custom.deleteNamespacedCustomObject({
        group: 'keda.sh',
        version: 'v1alpha1',
        namespace: NAMESPACE,
        plural: 'scaledobjects',
        name: 'drift-keda',
        propagationPolicy: 'Orphan',
      });
      await appliedAgain('ScaledObject', scaledObjects, before);
      figures['ScaledObject deleted: to applied again'] = seconds(
        Date.now() - deletedAt,
      );
      await settled([id], []);
      await deleteAll([id]);
    });

    it('a watch cut by an API server restart: changes after it are still seen', async () => {
      await start();
      const id = await create('cut', 'spot-l4');
      await settled([id], []);
      const before = await liveDeployment('cut');

      // The restart closes every watch; the informers come back from the last version they saw.
      const watchesBefore = await openWatches(kubeconfig);
      await clusterComponent(kubeconfig, 'restart', 'kube-apiserver');
      const deletedAt = Date.now();
      await clients.apps.deleteNamespacedDeployment({
        name: 'cut',
        namespace: NAMESPACE,
      });
      await appliedAgain(
        'Deployment',
        () => liveDeployment('cut'),
        before,
        90_000,
      );
      figures['after a watch cut: deleted to applied again'] = seconds(
        Date.now() - deletedAt,
      );
      expect((await liveDeployment('cut'))?.spec?.replicas).toBe(1);
      await settled([id], []);
      await untilWatchesReturn(kubeconfig, watchesBefore);
      figures['after a watch cut: back to every watch'] = seconds(
        Date.now() - deletedAt,
      );
      await deleteAll([id]);
    });

    describe('on a PostgreSQL of its own', () => {
      let postgres: PrivatePostgres | undefined;

      beforeAll(async () => {
        postgres = await startPrivatePostgres();
      });

      afterAll(() => {
        // The stopped backend's scheduler still queries its database: the server stays until this process ends.
        postgres?.stopWhenProcessEnds();
      });

      it('PostgreSQL restarted in the middle of a burst of creates: every service becomes ready, each reserved once', async () => {
        await start({
          backend: {
            database: {
              client: 'pg',
              connection: postgres!.connection,
              // No pool minimum to reconnect to once the server is stopped after the test.
              knexConfig: { pool: { min: 0, idleTimeoutMillis: 500 } },
            },
          },
        });
        const names = [0, 1, 2].flatMap(i => [
          ['spot-l4', `pg-spot-${i}`],
          ['l4-ondemand', `pg-ondemand-${i}`],
        ]);
        // A client creating with a request key, trying again after an error, as any client of the API would.
        const createdIds = new Set<string>();
        const creates = names.map(async ([pool, name], index) => {
          await new Promise(r => setTimeout(r, index * 300));
          for (let attempt = 1; ; attempt++) {
            const res = await http.post('/api/gpu/services').send({
              request: request(name, pool),
              requestKey: `${name}-key`,
            });
            if (res.status === 201 || res.status === 200) {
              createdIds.add(res.body.id);
              return;
            }
            if (attempt > 60) {
              throw new Error(
                `create ${name}: ${res.status} ${JSON.stringify(res.body)}`,
              );
            }
            await new Promise(r => setTimeout(r, 1000));
          }
        });
        await new Promise(r => setTimeout(r, 700));
        const restartedAt = Date.now();
        await postgres!.restart();
        figures['PostgreSQL restart took'] = seconds(Date.now() - restartedAt);
        await Promise.all(creates);
        const ids = [...createdIds];
        expect(ids).toHaveLength(6);
        await settled(ids, []);
        figures['PostgreSQL restarted: to all ready'] = seconds(
          Date.now() - restartedAt,
        );
        expect(await reserved()).toEqual({ 'spot-l4': 3, 'l4-ondemand': 3 });
        await deleteAll(ids);
        expect(await reserved()).toEqual({});
      });
    });
  },
);
