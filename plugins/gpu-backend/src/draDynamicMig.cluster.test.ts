import {
  demoPlatformConfig,
  DYNAMIC_MIG_RESOURCE,
  GPU_UNITS_PER_EQUIVALENT,
  parsePlatform,
  PlatformConfig,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  dynamicMigDeviceClass,
  renderPlatformManifests,
  renderServiceManifests,
  renderTeamManifests,
  simulatedGpuNodes,
  simulatedResourceSlices,
} from '@gpu-platform/backstage-plugin-gpu-node';
import {
  describeOnLocalCluster,
  RawKubernetesClient,
} from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  hasCondition,
  KueueWorkload,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  workloadsOfPods,
} from './__testUtils__/localCluster';

jest.setTimeout(240_000);

const NAMESPACE = 'cluster-dra-dynamic';
const TEAM = 'cluster-dra-dynamic';
const FLAVOR = 'a100-mig-dynamic';
const FIELD_MANAGER = 'gpu-dra-dynamic-suite';
const RESOURCE = { group: 'resource.k8s.io', version: 'v1' };
const KUEUE = { group: 'kueue.x-k8s.io', version: 'v1beta2' };
/** SMs of the A100-80GB's MIG profiles (MIG User Guide), what Kueue charges through the driver's counter. */
const SMS: Record<string, number> = {
  '1g.10gb': 14,
  '2g.20gb': 28,
  '3g.40gb': 42,
};
/**
 * The team's quota on the pool, in GPUs as a platform team writes it: 8/7 of a GPU, which the product renders as 112
 * SMs, more than the one GPU's 98, so that Kueue admits a third device the GPU cannot hold (the scheduler keeps it
 * pending) and refuses a fourth over quota.
 */
const QUOTA_GPUS = 8 / 7;
const QUOTA_SMS = 112;

/** One kwok node with one A100-80GB, its driver running with the `DynamicMIG` feature gate: a dynamic MIG pool. */
const POOL: NonNullable<PlatformConfig['pools']>[number] = {
  name: FLAVOR,
  gpuModel: 'A100-80GB',
  gpusPerNode: 1,
  maxNodes: 1,
  pricePerNodeHour: '3.673',
  nodeLabels: { 'gpu.example.com/pool': FLAVOR },
  nodeTaints: [
    { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
  ],
  sharing: {
    type: 'mig',
    partitioning: 'dynamic',
    layout: { '1g.10gb': 7, '2g.20gb': 3, '3g.40gb': 2 },
  },
  allocation: 'dra',
};
const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [POOL],
  teams: [
    {
      name: TEAM,
      namespaces: [NAMESPACE],
      gpuQuota: { [FLAVOR]: QUOTA_GPUS },
      monthlyBudget: '100000',
    },
  ],
});
const nodes = simulatedGpuNodes(platform);
const NODE = nodes[0].metadata!.name!;
/** The simulated driver's objects: what the product publishes for a dynamic MIG pool's kwok node. */
const hardware: KubernetesObject[] = [
  dynamicMigDeviceClass(),
  ...nodes,
  ...simulatedResourceSlices(platform),
];
/** The product's Kueue objects for the pool and the team: its ResourceFlavor, ClusterQueue and LocalQueue. */
const rendered = renderPlatformManifests(platform);
const kueueObjects: KubernetesObject[] = [
  ...rendered.filter(o => o.apiVersion?.startsWith('kueue.x-k8s.io/')),
  ...renderTeamManifests(platform, TEAM),
];
const clusterQueue = kueueObjects.find(o => o.kind === 'ClusterQueue')!;
const QUEUE = clusterQueue.metadata!.name!;
/** What this suite alone owns and removes (the host flavor, cohort and priority classes are shared by every suite). */
const owned = (object: KubernetesObject) =>
  object.kind === 'ClusterQueue' ||
  object.kind === 'LocalQueue' ||
  (object.kind === 'ResourceFlavor' && object.metadata?.name === FLAVOR);

/** What the product renders for a service on the pool, one replica of `profile`. */
function service(name: string, profile: string): KubernetesObject[] {
  return renderServiceManifests(
    platform,
    smallServiceRequest({
      name,
      team: TEAM,
      namespace: NAMESPACE,
      tier: 'mig',
      pool: FLAVOR,
    }),
    { tier: 'mig', pool: FLAVOR, migProfile: profile, gpusPerReplica: 1 },
    { serviceId: `svc-${name}` },
  );
}

/** GPU units the ledger holds for one replica of `profile` on the pool (the quote's slice weight). */
function ledgerUnits(profile: string): number {
  return slicesFor(platform, FLAVOR).find(s => s.migProfile === profile)!
    .gpuUnits;
}

interface Claim {
  status?: {
    allocation?: {
      devices?: {
        results?: Array<{ device: string; driver: string; pool: string }>;
      };
    };
    reservedFor?: Array<{ resource: string; name: string; uid: string }>;
  };
}

describeOnLocalCluster(
  'Dynamic MIG through DRA counters, on the real scheduler with Kueue',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const raw = new RawKubernetesClient(clients.kc);
    const services = ['dyn-3g', 'dyn-2g', 'dyn-3g-second', 'dyn-1g'];

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

    async function remove(object: KubernetesObject) {
      await raw
        .request('DELETE', await raw.objectPath(object))
        .catch(() => undefined);
    }

    async function start(name: string, profile: string) {
      for (const object of service(name, profile)) await apply(object);
    }

    async function stop(name: string) {
      for (const object of [...service(name, '1g.10gb')].reverse()) {
        await remove(object);
      }
    }

    async function onePod(name: string): Promise<V1Pod> {
      return eventually(`a pod of ${name}`, async () => {
        const pods = await podsOf(clients, NAMESPACE, name);
        return pods.length === 1 ? pods[0] : undefined;
      });
    }

    async function workloadOf(name: string): Promise<KueueWorkload> {
      const pod = await onePod(name);
      return eventually(`the workload of ${name}`, async () => {
        const [workload] = await workloadsOfPods(clients, NAMESPACE, [pod]);
        return workload;
      });
    }

    async function claimOf(pod: V1Pod): Promise<Claim> {
      const claimName =
        pod.status?.resourceClaimStatuses?.[0]?.resourceClaimName;
      expect(claimName).toBeDefined();
      return (await clients.custom.getNamespacedCustomObject({
        ...RESOURCE,
        namespace: NAMESPACE,
        plural: 'resourceclaims',
        name: claimName!,
      })) as Claim;
    }

    const usage = (workload: KueueWorkload) =>
      (
        workload.status?.admission?.podSetAssignments[0] as
          | { resourceUsage?: Record<string, string> }
          | undefined
      )?.resourceUsage?.[DYNAMIC_MIG_RESOURCE];

    async function cleanUp() {
      for (const name of services) await stop(name);
      await eventually('the suite pods gone', async () => {
        const pods = await clients.core.listNamespacedPod({
          namespace: NAMESPACE,
        });
        return pods.items.length === 0 ? true : undefined;
      });
    }

    beforeAll(async () => {
      for (const object of hardware) {
        await apply(object);
        if (object.kind === 'Node') await apply(object, 'status');
      }
      await createNamespaces(clients, [NAMESPACE]);
      await cleanUp();
      for (const object of kueueObjects) await apply(object);
    });

    afterAll(async () => {
      await cleanUp().catch(() => undefined);
      for (const object of [...kueueObjects].reverse()) {
        if (owned(object)) await remove(object);
      }
      for (const object of [...hardware].reverse()) {
        if (object.kind === 'DeviceClass') continue;
        await remove(object);
      }
    });

    it('renders the pool’s quota in SMs under the mapped resource: 8/7 of a GPU is 112 SMs', () => {
      const spec = (
        clusterQueue as KubernetesObject & {
          spec: {
            resourceGroups: Array<{
              coveredResources: string[];
              flavors: Array<{
                name: string;
                resources: Array<{ name: string; nominalQuota: string }>;
              }>;
            }>;
          };
        }
      ).spec;
      const group = spec.resourceGroups.find(g =>
        g.coveredResources.includes(DYNAMIC_MIG_RESOURCE),
      )!;
      expect(group.flavors).toEqual([
        {
          name: FLAVOR,
          resources: [
            { name: DYNAMIC_MIG_RESOURCE, nominalQuota: String(QUOTA_SMS) },
          ],
        },
      ]);
      const claim = service('dyn-3g', '3g.40gb').find(
        o => o.kind === 'ResourceClaimTemplate',
      ) as KubernetesObject & {
        spec: { spec: { devices: { requests: any[] } } };
      };
      expect(claim.spec.spec.devices.requests[0].exactly.deviceClassName).toBe(
        'mig-dynamic.gpu.backstage.io',
      );
    });

    it('publishes the driver’s counters and every placement, accepted by the API server', async () => {
      const slices = (await clients.custom.listClusterCustomObject({
        ...RESOURCE,
        plural: 'resourceslices',
      })) as {
        items: Array<{
          spec: {
            nodeName?: string;
            sharedCounters?: Array<{
              name: string;
              counters: Record<string, { value: string }>;
            }>;
            devices?: Array<{ name: string }>;
          };
        }>;
      };
      const mine = slices.items.filter(s => s.spec.nodeName === NODE);
      const counters = mine.find(s => s.spec.sharedCounters)!;
      expect(counters.spec.sharedCounters![0].name).toBe('gpu-0-counter-set');
      expect(
        counters.spec.sharedCounters![0].counters.multiprocessors.value,
      ).toBe('98');
      const devices = mine.flatMap(s => s.spec.devices ?? []).map(d => d.name);
      // The whole GPU and 7 + 4 + 3 + 2 + 1 + 1 placements of the six A100-80GB profiles.
      expect(devices).toHaveLength(19);
      expect(devices).toContain('gpu-0-mig-3g40gb-9-4');
    });

    it('allocates two MIG devices of different profiles on one GPU, charges their SMs in Kueue, keeps a third the GPU cannot hold pending in the scheduler and a fourth over quota pending in Kueue', async () => {
      await start('dyn-3g', '3g.40gb');
      await start('dyn-2g', '2g.20gb');

      const allocated: Array<{ device: string; pod: V1Pod }> = [];
      for (const [name, profile] of [
        ['dyn-3g', '3g.40gb'],
        ['dyn-2g', '2g.20gb'],
      ]) {
        const pod = await eventually(`${name} running`, async () => {
          const p = await onePod(name);
          return p.status?.phase === 'Running' ? p : undefined;
        });
        expect(pod.spec?.nodeName).toBe(NODE);
        const workload = await workloadOf(name);
        expect(hasCondition(workload.status?.conditions, 'Admitted')).toBe(
          true,
        );
        expect(
          workload.status!.admission!.podSetAssignments[0].flavors?.[
            DYNAMIC_MIG_RESOURCE
          ],
        ).toBe(FLAVOR);
        // Kueue charged the profile's SMs, read from the driver's counter: the units the ledger holds for it.
        expect(usage(workload)).toBe(String(SMS[profile]));
        expect(ledgerUnits(profile)).toBe(
          (SMS[profile] * GPU_UNITS_PER_EQUIVALENT) / 98,
        );
        const claim = await claimOf(pod);
        const [result] = claim.status!.allocation!.devices!.results!;
        expect(result.driver).toBe('gpu.nvidia.com');
        expect(result.pool).toBe(NODE);
        expect(result.device).toMatch(
          new RegExp(`^gpu-0-mig-${profile.replace('.', '')}-\\d+-\\d$`),
        );
        expect(claim.status!.reservedFor).toEqual([
          {
            resource: 'pods',
            name: pod.metadata!.name,
            uid: pod.metadata!.uid,
          },
        ]);
        allocated.push({ device: result.device, pod });
      }
      // Both from GPU 0, on memory slices that do not overlap (the counters hold the placements apart).
      const placement = (device: string) => Number(device.split('-').at(-1));
      const [threeG, twoG] = allocated.map(a => placement(a.device));
      const threeSlices = [threeG, threeG + 1, threeG + 2, threeG + 3];
      expect(threeSlices).not.toContain(twoG);
      expect(threeSlices).not.toContain(twoG + 1);

      // A second 3g.40gb: within quota (42 + 28 + 42 = 112), admitted by Kueue, but the GPU has 28 SMs and two memory
      // slices left: the scheduler cannot allocate it and the pod stays pending.
      await start('dyn-3g-second', '3g.40gb');
      const third = await workloadOf('dyn-3g-second');
      await eventually('dyn-3g-second admitted', async () => {
        const [w] = await workloadsOfPods(clients, NAMESPACE, [
          await onePod('dyn-3g-second'),
        ]);
        return hasCondition(w?.status?.conditions, 'Admitted') ? w : undefined;
      });
      expect(third).toBeDefined();
      const pending = await eventually(
        'dyn-3g-second unschedulable',
        async () => {
          const p = await onePod('dyn-3g-second');
          const condition = p.status?.conditions?.find(
            c => c.type === 'PodScheduled' && c.status === 'False',
          );
          return condition?.reason === 'Unschedulable'
            ? { p, condition }
            : undefined;
        },
      );
      expect(pending.p.spec?.nodeName).toBeUndefined();
      expect(pending.condition.message).toMatch(/resourceclaim|claim|device/i);

      // A 1g.10gb over quota (112 + 14 > 112): Kueue keeps it pending with its quota reason.
      await start('dyn-1g', '1g.10gb');
      const overQuota = await eventually(
        'dyn-1g pending in Kueue',
        async () => {
          const [w] = await workloadsOfPods(clients, NAMESPACE, [
            await onePod('dyn-1g'),
          ]);
          const condition = w?.status?.conditions?.find(
            c => c.type === 'QuotaReserved' && c.status === 'False',
          ) as { message?: string } | undefined;
          return condition?.message
            ? { w, message: condition.message }
            : undefined;
        },
      );
      expect(hasCondition(overQuota.w.status?.conditions, 'Admitted')).toBe(
        false,
      );
      expect(overQuota.message).toContain(DYNAMIC_MIG_RESOURCE);
      expect(overQuota.message).toMatch(/insufficient unused quota/);

      // Kueue's ClusterQueue counts the three admitted devices' SMs.
      const queue = await eventually('the queue usage', async () => {
        const cq = (await clients.custom.getClusterCustomObject({
          ...KUEUE,
          plural: 'clusterqueues',
          name: QUEUE,
        })) as {
          status?: {
            flavorsReservation?: Array<{
              name: string;
              resources: Array<{ name: string; total: string }>;
            }>;
          };
        };
        const total = cq.status?.flavorsReservation
          ?.find(f => f.name === FLAVOR)
          ?.resources.find(r => r.name === DYNAMIC_MIG_RESOURCE)?.total;
        return total === String(QUOTA_SMS) ? total : undefined;
      });
      expect(queue).toBe('112');
      // The ledger holds the same: the three admitted slices weigh the team's whole quota on the pool.
      expect(2 * ledgerUnits('3g.40gb') + ledgerUnits('2g.20gb')).toBe(
        Math.round(QUOTA_GPUS * GPU_UNITS_PER_EQUIVALENT),
      );

      // Teardown of the first 3g.40gb frees its placement: the second 3g.40gb is then allocated on the GPU (the 1g.10gb
      // goes first, so that it cannot take a slice of that placement).
      await stop('dyn-1g');
      await eventually('dyn-1g gone', async () => {
        const pods = await clients.core.listNamespacedPod({
          namespace: NAMESPACE,
          labelSelector: 'app.kubernetes.io/instance=dyn-1g',
        });
        return pods.items.length === 0 ? true : undefined;
      });
      await stop('dyn-3g');
      const second = await eventually('dyn-3g-second running', async () => {
        const p = await onePod('dyn-3g-second');
        return p.status?.phase === 'Running' ? p : undefined;
      });
      const [freed] = (await claimOf(second)).status!.allocation!.devices!
        .results!;
      expect(freed.device).toMatch(/^gpu-0-mig-3g40gb-9-\d$/);
    });
  },
);
