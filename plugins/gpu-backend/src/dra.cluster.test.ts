import {
  demoPlatformConfig,
  parsePlatform,
  PlatformConfig,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  nvidiaDeviceClasses,
  simulatedGpuNodes,
  simulatedResourceSlices,
} from '@gpu-platform/backstage-plugin-gpu-node';
import {
  describeOnLocalCluster,
  RawKubernetesClient,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import {
  KubernetesObject,
  V1Deployment,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';
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

jest.setTimeout(240_000);

const TEAM = 'cluster-dra';
const NAMESPACE = 'cluster-dra';
const FIELD_MANAGER = 'gpu-dra-suite';
const RESOURCE = { group: 'resource.k8s.io', version: 'v1' };
const MIG_DEVICES = 'gpu.backstage.io/mig-devices';

/**
 * The mixed fleet: the demo platform's device-plugin pools (the local cluster's nodes) and two DRA pools of this
 * suite's own, whose kwok nodes, ResourceSlices and the driver's DeviceClasses the suite publishes itself (as
 * `scripts/cluster` does for DRA pools in its platform config) and removes afterwards.
 */
const DRA_POOLS: NonNullable<PlatformConfig['pools']> = [
  {
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
  },
  {
    name: 'a100-mig-dra',
    gpuModel: 'A100-80GB',
    gpusPerNode: 1,
    maxNodes: 1,
    pricePerNodeHour: '3.673',
    nodeLabels: {
      'gpu.example.com/pool': 'a100-mig-dra',
      'nvidia.com/mig.config': 'all-1g.10gb',
    },
    nodeTaints: [
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ],
    sharing: { type: 'mig', layout: { '1g.10gb': 7 } },
    allocation: 'dra',
  },
];

/** 2 L4s (one per node), and 2 of the seven 1g.10gb devices (720 GPU units each). */
const GPU_QUOTA = { 'l4-dra': 2, 'a100-mig-dra': (2 * 720) / 5040 };

const draOnly = parsePlatform({
  ...demoPlatformConfig,
  pools: DRA_POOLS,
  teams: [],
});
const hardware: KubernetesObject[] = [
  ...nvidiaDeviceClasses(),
  ...simulatedGpuNodes(draOnly),
  ...simulatedResourceSlices(draOnly),
];

interface Claim {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    ownerReferences?: Array<{ kind: string; name: string }>;
  };
  status?: {
    allocation?: {
      devices?: {
        results?: Array<{ device: string; driver: string; pool: string }>;
      };
      nodeSelector?: unknown;
    };
    reservedFor?: Array<{ resource: string; name: string; uid: string }>;
  };
}

function request(
  name: string,
  tier: 'dedicated' | 'mig',
  pool: string,
): ServiceRequest {
  return smallServiceRequest({
    name,
    team: TEAM,
    namespace: NAMESPACE,
    tier,
    pool,
  });
}

describeOnLocalCluster(
  'DRA pools beside device-plugin pools, on the real scheduler with Kueue',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const raw = new RawKubernetesClient(clients.kc);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;
    const created: string[] = [];

    async function apply(object: KubernetesObject, subresource?: string) {
      const res = await raw.apply(object, {
        fieldManager: FIELD_MANAGER,
        subresource,
      });
      if (res.status >= 300) {
        throw new Error(
          `${object.kind} ${object.metadata?.name}: ${
            res.status
          } ${JSON.stringify(res.body)}`,
        );
      }
    }

    /** The ResourceClaims made from a template for `pod` (owned by it). */
    async function claimsOf(pod: string): Promise<Claim[]> {
      const list = (await clients.custom.listNamespacedCustomObject({
        ...RESOURCE,
        namespace: NAMESPACE,
        plural: 'resourceclaims',
      })) as { items: Claim[] };
      return list.items.filter(c =>
        c.metadata.ownerReferences?.some(
          o => o.kind === 'Pod' && o.name === pod,
        ),
      );
    }

    beforeAll(async () => {
      for (const object of hardware) {
        await apply(object);
        if (object.kind === 'Node') await apply(object, 'status');
      }
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
            gpuQuota: GPU_QUOTA,
            monthlyBudget: '100000',
          },
        ],
        gpu: {
          pools: [
            // Asked to use DRA, an MPS pool stays on the device plugin, and says why.
            ...demoPlatformConfig.pools.map(p =>
              p.name === 'l4-mps' ? { ...p, allocation: 'dra' } : p,
            ),
            ...DRA_POOLS,
          ],
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
      await clients.apps
        .deleteCollectionNamespacedDeployment({ namespace: NAMESPACE })
        .catch(() => undefined);
      await stop?.();
      for (const object of [...hardware].reverse()) {
        if (object.kind === 'DeviceClass') continue; // harmless, and another suite may rely on them
        await raw
          .request('DELETE', await raw.objectPath(object))
          .catch(() => undefined);
      }
    });

    it.each([
      {
        tier: 'dedicated' as const,
        pool: 'l4-dra',
        resource: 'nvidia.com/gpu',
        device: /^gpu-0$/,
      },
      {
        tier: 'mig' as const,
        pool: 'a100-mig-dra',
        resource: MIG_DEVICES,
        device: /^gpu-0-mig-1g10gb-19-\d$/,
      },
    ])(
      '$tier on $pool: every object passes a server-side dry run, Kueue admits it in $resource, the scheduler allocates a device of the pool, the pod runs, teardown frees the claim',
      async c => {
        const svc = request(`dra-${c.tier}`, c.tier, c.pool);
        // The rendered objects, dry-run on the API server (with Kueue's webhooks) before anything is applied.
        const preview = await http
          .post('/api/gpu/services')
          .send({ request: svc, dryRun: true })
          .expect(200);
        const manifests = preview.body.manifests as KubernetesObject[];
        expect(manifests.map(m => m.kind)).toContain('ResourceClaimTemplate');
        for (const manifest of manifests) {
          const res = await raw.apply(manifest, {
            fieldManager: FIELD_MANAGER,
            dryRun: true,
          });
          expect({
            kind: manifest.kind,
            status: res.status,
            body: res.status >= 300 ? res.body : undefined,
          }).toEqual({
            kind: manifest.kind,
            status: expect.any(Number),
            body: undefined,
          });
        }

        const res = await http
          .post('/api/gpu/services')
          .send({ request: svc })
          .expect(201);
        created.push(res.body.id);
        expect(res.body.placement.pool).toBe(c.pool);
        await eventually(`service ${svc.name} ready`, async () => {
          const s = await http
            .get(`/api/gpu/services/${res.body.id}`)
            .expect(200);
          if (s.body.status === 'failed')
            throw new Error(`failed: ${s.body.statusReason}`);
          return s.body.status === 'ready' ? true : undefined;
        });

        const [pod] = await podsOf(clients, NAMESPACE, svc.name);
        expect(pod.status?.phase).toBe('Running');
        expect(pod.spec?.nodeName).toMatch(new RegExp(`^kwok-${c.pool}-\\d+$`));
        const [workload] = await workloadsOfPods(clients, NAMESPACE, [pod]);
        expect(hasCondition(workload.status?.conditions, 'Admitted')).toBe(
          true,
        );
        const assignment = workload.status!.admission!.podSetAssignments[0];
        expect(assignment.flavors?.[c.resource]).toBe(c.pool);
        expect(
          (assignment as { resourceUsage?: Record<string, string> })
            .resourceUsage?.[c.resource],
        ).toBe('1');

        // The scheduler allocated a device of the pool's node to the pod's claim and reserved it for the pod.
        const claimName =
          pod.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
        expect(claimName).toBeDefined();
        const claim = (await clients.custom.getNamespacedCustomObject({
          ...RESOURCE,
          namespace: NAMESPACE,
          plural: 'resourceclaims',
          name: claimName!,
        })) as Claim;
        const [result] = claim.status!.allocation!.devices!.results!;
        expect(result.driver).toBe('gpu.nvidia.com');
        expect(result.pool).toBe(pod.spec!.nodeName);
        expect(result.device).toMatch(c.device);
        expect(claim.status!.reservedFor).toEqual([
          {
            resource: 'pods',
            name: pod.metadata!.name,
            uid: pod.metadata!.uid,
          },
        ]);

        // The service's status shows the allocated device and its node, read from the claim.
        const detail = await http
          .get(`/api/gpu/services/${res.body.id}`)
          .expect(200);
        expect(detail.body.clusterStatus.pods[0].devices).toEqual([
          {
            claim: claimName,
            device: result.device,
            driver: 'gpu.nvidia.com',
            pool: pod.spec!.nodeName,
          },
        ]);

        // Teardown: the pod goes, and with it its claim and the device.
        await http.delete(`/api/gpu/services/${res.body.id}`).expect(200);
        created.splice(created.indexOf(res.body.id), 1);
        await eventually(`claim ${claimName} deleted`, async () => {
          try {
            await clients.custom.getNamespacedCustomObject({
              ...RESOURCE,
              namespace: NAMESPACE,
              plural: 'resourceclaims',
              name: claimName!,
            });
            return undefined;
          } catch (error) {
            return (error as { code?: number }).code === 404 ? true : undefined;
          }
        });
      },
    );

    it("keeps a MIG workload over the mapped quota pending with Kueue's reason", async () => {
      const svc = {
        ...request('dra-mig-pair', 'mig', 'a100-mig-dra'),
        replicas: 2,
      };
      const res = await http
        .post('/api/gpu/services')
        .send({ request: svc })
        .expect(201);
      created.push(res.body.id);
      await eventually('both replicas admitted', async () => {
        const pods = await podsOf(clients, NAMESPACE, svc.name);
        const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
        return workloads.filter(w =>
          hasCondition(w.status?.conditions, 'Admitted'),
        ).length === 2
          ? true
          : undefined;
      });

      // A third device, submitted to the team's queue outside Backstage (the store would ask for approval first).
      const preview = await http
        .post('/api/gpu/services')
        .send({
          request: { ...svc, name: 'dra-mig-extra', replicas: 1 },
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
      template.metadata = {
        labels: {
          app: 'dra-mig-extra',
          [queueLabel]: template.metadata!.labels![queueLabel],
        },
      };
      template.spec!.volumes = undefined;
      template.spec!.initContainers = undefined;
      for (const container of template.spec!.containers)
        container.volumeMounts = undefined;
      // The service's own template (each pod gets a claim of its own from it).
      template.spec!.resourceClaims = [
        { name: 'gpu', resourceClaimTemplateName: 'dra-mig-pair-gpu' },
      ];
      await clients.apps.createNamespacedDeployment({
        namespace: NAMESPACE,
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'dra-mig-extra',
            labels: { [queueLabel]: template.metadata.labels![queueLabel] },
          },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'dra-mig-extra' } },
            template,
          },
        },
      });
      const reserved = await eventually(
        'Kueue refusing the third device',
        async () => {
          const pods = await podsOf(clients, NAMESPACE, 'dra-mig-extra');
          const [workload] = await workloadsOfPods(clients, NAMESPACE, pods);
          const condition = (
            workload as KueueWorkload | undefined
          )?.status?.conditions?.find(x => x.type === 'QuotaReserved');
          return condition?.status === 'False' &&
            /insufficient unused quota/i.test(condition.message ?? '')
            ? condition
            : undefined;
        },
      );
      expect(reserved.message).toContain(MIG_DEVICES);
      const [gated] = await podsOf(clients, NAMESPACE, 'dra-mig-extra');
      expect(gated.spec?.schedulingGates?.map(g => g.name)).toContain(
        'kueue.x-k8s.io/admission',
      );
      // Its claim, if the claim controller made it already, has no device: the pod never reached the scheduler.
      for (const claim of await claimsOf(gated.metadata!.name!)) {
        expect(claim.status?.allocation).toBeUndefined();
      }
    });

    it('quotes an MPS pool asked to use DRA on the device plugin, with the reason', async () => {
      const platform = await http.get('/api/gpu/platform').expect(200);
      const mps = (
        platform.body.platform.pools as Array<{
          name: string;
          allocation: unknown;
        }>
      ).find(p => p.name === 'l4-mps');
      expect(mps?.allocation).toEqual({
        backend: 'device-plugin',
        requested: 'dra',
        fallback: {
          reason: 'shared-claims-refused',
          message: expect.stringMatching(/Kueue refuses/),
        },
      });
      const quote = await http
        .post('/api/gpu/quote')
        .send({
          ...request('dra-quote', 'dedicated', 'l4-dra'),
          tier: undefined,
          pool: undefined,
        })
        .expect(200);
      const options = [
        ...quote.body.options,
        ...quote.body.unavailable,
      ] as Array<{
        slice: {
          pool: string;
          allocation: { backend: string; fallback?: { reason: string } };
        };
      }>;
      expect(
        options.find(o => o.slice.pool === 'l4-mps')?.slice.allocation.fallback
          ?.reason,
      ).toBe('shared-claims-refused');
      expect(
        options.find(o => o.slice.pool === 'l4-dra')?.slice.allocation.backend,
      ).toBe('dra');
    });
  },
);
