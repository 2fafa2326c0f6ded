import {
  Runtime,
  ServiceRequest,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GPU_UNITS_RESOURCE } from '@gpu-platform/backstage-plugin-gpu-node';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import {
  createNamespaces,
  eventually,
  hasCondition,
  localClusterClients,
  podsOf,
  smallServiceRequest,
  startLocalClusterBackend,
  workloadsOfPods,
} from './__testUtils__/localCluster';

jest.setTimeout(180_000);

const TEAM = 'cluster-tiers';
const NAMESPACE = 'cluster-tiers';

/** One service per tier and runtime, each on the demo platform's pool for that tier. */
const CASES: Array<{ tier: SharingTier; pool: string; runtime: Runtime }> = [
  { tier: 'dedicated', pool: 'l4-ondemand', runtime: 'vllm' },
  { tier: 'dedicated', pool: 'l4-ondemand', runtime: 'ollama' },
  { tier: 'mig', pool: 'a100-mig', runtime: 'vllm' },
  { tier: 'mig', pool: 'a100-mig', runtime: 'ollama' },
  { tier: 'mps', pool: 'l4-mps', runtime: 'vllm' },
  { tier: 'mps', pool: 'l4-mps', runtime: 'ollama' },
  { tier: 'time-sliced', pool: 't4-timeslice', runtime: 'vllm' },
  { tier: 'time-sliced', pool: 't4-timeslice', runtime: 'ollama' },
];

function requestFor(c: (typeof CASES)[number]): ServiceRequest {
  return smallServiceRequest({
    name: `${c.tier}-${c.runtime}`,
    team: TEAM,
    namespace: NAMESPACE,
    runtime: c.runtime,
    tier: c.tier,
    pool: c.pool,
  });
}

describeOnLocalCluster(
  'services on a real API server with Kueue',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;

    beforeAll(async () => {
      await createNamespaces(clients, [NAMESPACE]);
      const started = await startLocalClusterBackend({
        kubeconfig,
        groups: [TEAM],
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: {
              'l4-ondemand': 2,
              'a100-mig': 1,
              'l4-mps': 1,
              't4-timeslice': 1,
            },
            monthlyBudget: '100000',
          },
        ],
        gpu: { statusRefresh: { frequency: { seconds: 1 } } },
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      await stop?.();
    });

    it.each(CASES)(
      '$tier on $pool with $runtime: applied with our field manager, admitted by Kueue with the pool as flavor, scheduled on the pool, ready once available',
      async c => {
        const created = await http
          .post('/api/gpu/services')
          .send({ request: requestFor(c) })
          .expect(201);
        const id: string = created.body.id;
        expect(created.body.status).not.toBe('ready');
        const name = created.body.name as string;

        const ready = await eventually(`service ${name} ready`, async () => {
          const res = await http.get(`/api/gpu/services/${id}`).expect(200);
          if (res.body.status === 'failed') {
            throw new Error(`failed: ${res.body.statusReason}`);
          }
          return res.body.status === 'ready' ? res.body : undefined;
        });

        // Ready means available: the Deployment says so.
        const deployment = await clients.apps.readNamespacedDeployment({
          name,
          namespace: NAMESPACE,
        });
        expect(hasCondition(deployment.status?.conditions, 'Available')).toBe(
          true,
        );
        expect(deployment.status?.availableReplicas).toBe(1);

        // Every object the service owns exists, applied by our field manager.
        for (const manifest of ready.manifests as Array<{
          apiVersion: string;
          kind: string;
          metadata: { name: string; namespace?: string };
        }>) {
          if (manifest.kind !== 'Deployment') continue;
          const managers = deployment.metadata?.managedFields?.map(
            f => `${f.manager}/${f.operation}`,
          );
          expect(managers).toContain('backstage-gpu/Apply');
        }

        // Kueue admitted each pod's Workload in the team's ClusterQueue with the pool as flavor.
        const pods = await podsOf(clients, NAMESPACE, name);
        expect(pods).toHaveLength(1);
        const workloads = await workloadsOfPods(clients, NAMESPACE, pods);
        expect(workloads).toHaveLength(1);
        const admission = workloads[0].status?.admission;
        expect(admission?.clusterQueue).toBe(`gpu-${TEAM}`);
        const flavors = Object.entries(
          admission?.podSetAssignments[0].flavors ?? {},
        );
        // MIG requests are counted as Kueue transforms them: in GPU units.
        const gpuFlavors = flavors.filter(
          ([resource]) =>
            resource.startsWith('nvidia.com/') ||
            resource === GPU_UNITS_RESOURCE,
        );
        expect(gpuFlavors.length).toBeGreaterThan(0);
        for (const [, flavor] of gpuFlavors) expect(flavor).toBe(c.pool);
        expect(hasCondition(workloads[0].status?.conditions, 'Admitted')).toBe(
          true,
        );

        // The scheduler put the pod on a simulated node of the pool.
        const nodeName = pods[0].spec?.nodeName;
        expect(nodeName).toMatch(new RegExp(`^kwok-${c.pool}-\\d+$`));
        expect(pods[0].status?.phase).toBe('Running');

        await http.delete(`/api/gpu/services/${id}`).expect(200);
        await eventually(`deployment ${name} deleted`, async () => {
          try {
            await clients.apps.readNamespacedDeployment({
              name,
              namespace: NAMESPACE,
            });
            return undefined;
          } catch (error) {
            return (error as { code?: number }).code === 404 ? true : undefined;
          }
        });
      },
    );
  },
);
