import {
  demoPlatformConfig,
  PlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  describeOnLocalCluster,
  RawKubernetesClient,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import {
  KubernetesObject,
  V1Deployment,
  V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  smallServiceRequest,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';

jest.setTimeout(240_000);

const TEAM = 'cluster-prune';
const NAMESPACE = 'cluster-prune';
const SERVICE_ID_LABEL = 'gpu.backstage.io/service-id';
const FIELD_MANAGER = 'gpu-prune-suite';
/** The shared model cache the services of spot-l4 mount instead of a claim of their own (this suite's setting). */
const SHARED_CACHE = 'shared-models';

/** A DRA pool of this suite's own (no nodes needed: the objects are applied, pods may stay pending). */
const DRA_POOL: NonNullable<PlatformConfig['pools']>[number] = {
  name: 'l4-dra',
  gpuModel: 'L4',
  gpusPerNode: 1,
  maxNodes: 2,
  pricePerNodeHour: '0.8048',
  nodeLabels: { 'gpu.example.com/pool': 'l4-dra' },
  nodeTaints: [
    { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
  ],
  allocation: 'dra',
};

interface ServiceView {
  id: string;
  status: string;
  statusReason?: string;
  generation: number;
  observedGeneration?: number;
  manifests: KubernetesObject[];
}

interface AuditEvent {
  action: string;
  after?: { status?: string; generation?: number; pruned?: unknown };
}

/**
 * A change that stops rendering one of a service's objects removes that object from the cluster, as `kubectl apply
 * --prune` or Flux's garbage collection would: only the service's own objects of the kinds the product renders, never
 * the team's LocalQueue, an object of another service or an object without the ownership label.
 */
describeOnLocalCluster(
  'A change prunes the objects the new manifests no longer render',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const raw = new RawKubernetesClient(clients.kc);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;
    const created: string[] = [];

    /** The live object, or undefined when the API server has none. */
    async function live(
      object: KubernetesObject,
    ): Promise<KubernetesObject | undefined> {
      const res = await raw.request('GET', await raw.objectPath(object));
      if (res.status === 404) return undefined;
      if (res.status >= 300) {
        throw new Error(
          `GET ${object.kind} ${object.metadata?.name}: ${res.status}`,
        );
      }
      return res.body as KubernetesObject;
    }

    async function apply(object: KubernetesObject) {
      const res = await raw.apply(object, { fieldManager: FIELD_MANAGER });
      if (res.status >= 300) {
        throw new Error(
          `${object.kind} ${object.metadata?.name}: ${
            res.status
          } ${JSON.stringify(res.body)}`,
        );
      }
    }

    async function get(id: string): Promise<ServiceView> {
      return (await http.get(`/api/gpu/services/${id}`).expect(200)).body;
    }

    /** Waits until the service's current generation is applied (starting or ready); fails when it failed. */
    async function applied(id: string, generation: number) {
      return eventually(
        `generation ${generation} of ${id} applied`,
        async () => {
          const s = await get(id);
          if (s.status === 'failed') {
            throw new Error(`failed: ${s.statusReason}`);
          }
          return s.generation === generation &&
            s.observedGeneration === generation &&
            (s.status === 'starting' || s.status === 'ready')
            ? s
            : undefined;
        },
      );
    }

    async function create(
      name: string,
      pool: string,
      fields: Partial<ServiceRequest> = {},
    ): Promise<ServiceView> {
      const res = await http
        .post('/api/gpu/services')
        .send({
          request: smallServiceRequest({
            name,
            team: TEAM,
            namespace: NAMESPACE,
            tier: 'dedicated',
            pool,
            ...fields,
          }),
        })
        .expect(201);
      created.push(res.body.id);
      expect(res.body.placement.pool).toBe(pool);
      return applied(res.body.id, 1);
    }

    async function move(id: string, pool: string): Promise<ServiceView> {
      await http.patch(`/api/gpu/services/${id}`).send({ pool }).expect(200);
      return applied(id, 2);
    }

    function find(service: ServiceView, kind: string): KubernetesObject {
      const object = service.manifests.find(
        m =>
          m.kind === kind &&
          m.metadata?.labels?.[SERVICE_ID_LABEL] === service.id,
      );
      if (!object) throw new Error(`${kind} of ${service.id} not rendered`);
      return object;
    }

    /** The audit event of the service's move to `starting` at generation 2 (what its apply recorded). */
    async function appliedEvent(id: string): Promise<AuditEvent | undefined> {
      const res = await http
        .get('/api/gpu/audit')
        .query({ subjectId: id, action: 'service.status', order: 'asc' })
        .expect(200);
      return (res.body.items as AuditEvent[]).find(
        e => e.after?.status === 'starting' && e.after?.generation === 2,
      );
    }

    beforeAll(async () => {
      await createNamespaces(clients, [NAMESPACE]);
      const started = await startLocalClusterBackend({
        kubeconfig,
        groups: [TEAM],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { 'l4-dra': 1, 'l4-ondemand': 4, 'spot-l4': 1 },
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          pools: [...demoPlatformConfig.pools, DRA_POOL],
          serviceDefaults: {
            byPool: {
              // Scale to zero behind KEDA's HTTP add-on (an HTTPScaledObject), each service with its own cache claim.
              'l4-ondemand': {
                scaleToZero: { httpAddOn: { scaledownPeriodSeconds: 300 } },
              },
              // Woken by a query instead (a ScaledObject), with a shared model cache.
              'spot-l4': {
                modelCache: { existingClaim: SHARED_CACHE },
                scaleToZero: {
                  wakeQuery:
                    'sum(gateway_pending_requests{service="{{service}}"})',
                },
              },
            },
          },
          statusRefresh: { frequency: { seconds: 1 } },
        },
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      for (const id of created.splice(0)) {
        await http.delete(`/api/gpu/services/${id}`).catch(() => undefined);
      }
      await stop?.();
    });

    it('a service moved off a DRA pool loses its ResourceClaimTemplate; its other objects, the team LocalQueue and objects it does not own stay', async () => {
      const first = await create('prune-dra', 'l4-dra');
      const template = find(first, 'ResourceClaimTemplate');
      const deployment = find(first, 'Deployment');
      expect(await live(template)).toBeDefined();
      const deploymentUid = (await live(deployment))!.metadata!.uid;

      // Look-alikes the prune must leave: one labelled for another service, one without the ownership label.
      const otherService = {
        ...template,
        metadata: {
          name: 'prune-foreign-owned',
          namespace: NAMESPACE,
          labels: {
            ...template.metadata!.labels,
            [SERVICE_ID_LABEL]: '00000000-0000-4000-8000-000000000000',
          },
        },
      };
      const unlabelled = {
        ...template,
        metadata: { name: 'prune-foreign-unlabelled', namespace: NAMESPACE },
      };
      await apply(otherService);
      await apply(unlabelled);

      const second = await move(first.id, 'l4-ondemand');
      expect(second.manifests.map(m => m.kind)).not.toContain(
        'ResourceClaimTemplate',
      );

      // Gone from the API server (a template has no finalizer: the delete is immediate).
      await eventually('the ResourceClaimTemplate pruned', async () =>
        (await live(template)) === undefined ? true : undefined,
      );
      // What the new manifests render stays: the same Deployment (not re-created), its Service, claim and LocalQueue.
      expect((await live(deployment))?.metadata?.uid).toBe(deploymentUid);
      for (const object of second.manifests) {
        expect({
          kind: object.kind,
          live: (await live(object)) !== undefined,
        }).toEqual({ kind: object.kind, live: true });
      }
      expect(second.manifests.map(m => m.kind)).toContain('LocalQueue');
      expect(await live(otherService)).toBeDefined();
      expect(await live(unlabelled)).toBeDefined();

      // The apply of generation 2 records what it pruned.
      const event = await appliedEvent(first.id);
      expect(event?.after?.pruned).toEqual([
        {
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaimTemplate',
          namespace: NAMESPACE,
          name: template.metadata!.name,
        },
      ]);

      for (const object of [otherService, unlabelled]) {
        await raw.request('DELETE', await raw.objectPath(object));
      }
    });

    it('a scale-to-zero service moved from the HTTP add-on to a wake query loses its HTTPScaledObject, and its claim for a shared cache', async () => {
      const first = await create('prune-wake', 'l4-ondemand', {
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 1,
          targetQueueDepth: 4,
          engine: 'keda',
        },
      });
      const httpScaledObject = find(first, 'HTTPScaledObject');
      const claim = find(first, 'PersistentVolumeClaim');
      expect(await live(httpScaledObject)).toBeDefined();
      expect(await live(claim)).toBeDefined();

      const second = await move(first.id, 'spot-l4');
      expect(second.manifests.map(m => m.kind)).not.toContain(
        'HTTPScaledObject',
      );
      expect(second.manifests.map(m => m.kind)).not.toContain(
        'PersistentVolumeClaim',
      );
      const scaledObject = find(second, 'ScaledObject');
      // Same name, another kind: the ScaledObject replaces the HTTPScaledObject.
      expect(scaledObject.metadata?.name).toBe(httpScaledObject.metadata?.name);

      await eventually('the HTTPScaledObject pruned', async () =>
        (await live(httpScaledObject)) === undefined ? true : undefined,
      );
      // Deleted: gone, or held by the kubernetes.io/pvc-protection finalizer until the old pod stops using it.
      await eventually('the PersistentVolumeClaim pruned', async () => {
        const object = await live(claim);
        return object === undefined || object.metadata?.deletionTimestamp
          ? true
          : undefined;
      });
      // With KEDA's HTTP add-on running, the ScaledObject of the same name it made is owned by the HTTPScaledObject,
      // maybe only since just after the apply: the prune keeps it from the garbage collector and applies it again once
      // the HTTPScaledObject is gone.
      for (const object of second.manifests) {
        await eventually(
          `${object.kind} of generation 2 in the cluster`,
          async () => ((await live(object)) !== undefined ? true : undefined),
        );
      }
      // The wake query's, not the add-on's (its external-push trigger), and no longer owned by the pruned object.
      const triggerTypes = (object: KubernetesObject | undefined) =>
        (
          object as
            | { spec?: { triggers?: Array<{ type: string }> } }
            | undefined
        )?.spec?.triggers?.map(t => t.type);
      const liveScaledObject = await live(scaledObject);
      expect(triggerTypes(liveScaledObject)).toEqual(
        triggerTypes(scaledObject),
      );
      expect(liveScaledObject?.metadata?.ownerReferences ?? []).toEqual([]);
      const event = await appliedEvent(first.id);
      expect(event?.after?.pruned).toEqual([
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace: NAMESPACE,
          name: claim.metadata!.name,
        },
        {
          apiVersion: 'http.keda.sh/v1alpha1',
          kind: 'HTTPScaledObject',
          namespace: NAMESPACE,
          name: httpScaledObject.metadata!.name,
        },
      ]);
    });

    it('objects of a service deleted by hand, its HTTPScaledObject and Service, are applied again by the status refresh', async () => {
      const service = await create('drift-objects', 'l4-ondemand', {
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 1,
          targetQueueDepth: 4,
          engine: 'keda',
        },
      });
      const deleted = [
        find(service, 'HTTPScaledObject'),
        find(service, 'Service'),
      ];
      const uids = new Map<KubernetesObject, string | undefined>();
      for (const object of deleted) {
        uids.set(object, (await live(object))?.metadata?.uid);
        const res = await raw.request('DELETE', await raw.objectPath(object));
        expect(res.status).toBeLessThan(300);
      }
      for (const object of deleted) {
        await eventually(`${object.kind} applied again`, async () => {
          const again = await live(object);
          return again &&
            !again.metadata?.deletionTimestamp &&
            again.metadata?.uid !== uids.get(object)
            ? true
            : undefined;
        });
      }
      const res = await http
        .get('/api/gpu/audit')
        .query({
          subjectId: service.id,
          action: 'service.status',
          order: 'asc',
        })
        .expect(200);
      const repairs = (
        res.body.items as Array<{ after?: { statusReason?: string } }>
      )
        .map(e => e.after?.statusReason ?? '')
        .filter(reason => reason.startsWith('Applying again'));
      expect(repairs.length).toBeGreaterThan(0);
      expect(repairs[0]).toMatch(/is missing|are missing/);
      await applied(service.id, 1);
    });

    it("a deleted service loses its objects of every kind the product renders, also one its manifests do not hold; another service's look-alike stays", async () => {
      const service = await create('prune-teardown', 'l4-ondemand');
      const deployment = find(service, 'Deployment');
      // The service renders no PodDisruptionBudget: one left behind (a prune that failed) is found by its labels only.
      expect(service.manifests.map(m => m.kind)).not.toContain(
        'PodDisruptionBudget',
      );
      const budget = (name: string, serviceId: string): KubernetesObject =>
        ({
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: {
            name,
            namespace: NAMESPACE,
            labels: {
              ...deployment.metadata!.labels,
              [SERVICE_ID_LABEL]: serviceId,
            },
          },
          spec: {
            maxUnavailable: 1,
            selector: { matchLabels: { [SERVICE_ID_LABEL]: serviceId } },
          },
        } as KubernetesObject);
      const leftBehind = budget('prune-teardown-left-behind', service.id);
      const otherService = budget(
        'prune-teardown-foreign-owned',
        '00000000-0000-4000-8000-000000000001',
      );
      await apply(leftBehind);
      await apply(otherService);

      await http.delete(`/api/gpu/services/${service.id}`).expect(200);
      const deleted = await eventually(`${service.id} deleted`, async () => {
        const s = await get(service.id);
        if (s.status === 'failed') {
          throw new Error(`failed: ${s.statusReason}`);
        }
        return s.status === 'deleted' ? s : undefined;
      });
      expect(deleted.status).toBe('deleted');

      // A PodDisruptionBudget has no finalizer: deleted is gone.
      expect(await live(leftBehind)).toBeUndefined();
      const liveDeployment = await live(deployment);
      expect(
        liveDeployment === undefined ||
          Boolean(liveDeployment.metadata?.deletionTimestamp),
      ).toBe(true);
      expect(await live(otherService)).toBeDefined();
      await raw.request('DELETE', await raw.objectPath(otherService));
    });

    it('a service scaled from one replica to two mounts a ReadWriteMany model cache of its own; the ReadWriteOnce claim is pruned', async () => {
      const first = await create('prune-scale', 'l4-ondemand');
      const single = find(first, 'PersistentVolumeClaim');
      expect(single.metadata?.name).toBe('prune-scale-model-cache');
      expect(await live(single)).toBeDefined();

      // The API server refuses to change a claim's access modes: the apply of one claim name would fail here.
      await http
        .patch(`/api/gpu/services/${first.id}`)
        .send({ replicas: 2 })
        .expect(200);
      const second = await applied(first.id, 2);
      const shared = find(second, 'PersistentVolumeClaim');
      expect(shared.metadata?.name).toBe('prune-scale-model-cache-shared');
      const sharedLive = (await live(shared)) as V1PersistentVolumeClaim;
      expect(sharedLive.spec?.accessModes).toEqual(['ReadWriteMany']);
      const deployment = (await live(
        find(second, 'Deployment'),
      )) as V1Deployment;
      expect(
        deployment.spec?.template.spec?.volumes?.find(
          v => v.name === 'model-cache',
        )?.persistentVolumeClaim?.claimName,
      ).toBe('prune-scale-model-cache-shared');
      await eventually('the ReadWriteOnce claim pruned', async () => {
        const object = await live(single);
        return object === undefined || object.metadata?.deletionTimestamp
          ? true
          : undefined;
      });
    });
  },
);
