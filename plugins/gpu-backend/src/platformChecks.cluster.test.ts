import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';

jest.setTimeout(180_000);

const TEAM = 'cluster-checks';
const NAMESPACE = 'cluster-checks';

/** A GPU node without a taint, kept Ready by kwok (its annotation), outside every pool (no pool labels). */
const untaintedNode = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'checks-untainted-gpu',
    annotations: { 'kwok.x-k8s.io/node': 'fake' },
    labels: { type: 'kwok', 'kubernetes.io/hostname': 'checks-untainted-gpu' },
  },
  spec: {},
  status: {
    capacity: { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '1' },
    allocatable: { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '1' },
  },
};

/** A Karpenter NodePool that never consolidates (v1 defaults an absent disruption block to consolidateAfter: 0s). */
const neverConsolidates = {
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'checks-never-consolidates' },
  spec: {
    template: {
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'gpu' },
        requirements: [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        ],
      },
    },
    disruption: { consolidateAfter: 'Never' },
  },
};

function deployment(name: string, resources: Record<string, string>) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      // No pods: the check reads the template, and none may land on the untainted node.
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'server',
              image: 'vllm/vllm-openai:v0.10.1',
              resources: { requests: resources, limits: resources },
            },
          ],
        },
      },
    },
  };
}

function cpuAutoscaler(name: string, target: string) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: 1,
      maxReplicas: 4,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
        },
      ],
    },
  };
}

const objects: KubernetesObject[] = [
  untaintedNode,
  neverConsolidates,
  deployment('gpu-chat', { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' }),
  cpuAutoscaler('gpu-chat-cpu', 'gpu-chat'),
  // Scaling a CPU-only Deployment on CPU is right: not a finding.
  deployment('web', { cpu: '1', memory: '1Gi' }),
  cpuAutoscaler('web-cpu', 'web'),
];

const MISTAKES = {
  'Node checks-untainted-gpu': 'gpu-nodes-untainted',
  'NodePool checks-never-consolidates': 'karpenter-no-consolidate-after',
  [`HorizontalPodAutoscaler ${NAMESPACE}/gpu-chat-cpu`]: 'cpu-autoscaling-on-gpu',
};

type Finding = { id: string; source: string; cluster?: string; where: string };

describeOnLocalCluster(
  'platform checks on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const api = KubernetesObjectApi.makeApiClient(clients.kc);
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;

    async function removeAll() {
      for (const object of [...objects].reverse()) {
        try {
          await api.delete(object);
        } catch (error) {
          if ((error as { code?: number }).code !== 404) throw error;
        }
      }
    }

    async function clusterFindings(): Promise<Finding[]> {
      const res = await http.get('/api/gpu/platform/checks').expect(200);
      expect(res.body.clusters).toEqual([
        { name: 'local', mode: 'apply', live: true },
      ]);
      return res.body.findings.filter((f: Finding) => f.source === 'cluster');
    }

    beforeAll(async () => {
      await createNamespaces(clients, [NAMESPACE]);
      await removeAll();
      const started = await startLocalClusterBackend({
        kubeconfig,
        teams: [
          {
            name: TEAM,
            namespaces: [NAMESPACE],
            gpuQuota: { 'l4-ondemand': 1 },
            monthlyBudget: '1000',
          },
        ],
        groups: [TEAM],
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      await removeAll();
      await stop?.();
    });

    it('finds an untainted GPU node, a NodePool that never consolidates and a CPU autoscaler on a GPU Deployment, and none of them once they are gone', async () => {
      for (const object of objects) {
        await api.create(object);
      }
      const found = await eventually('the three mistakes found', async () => {
        const findings = await clusterFindings();
        const ours = findings.filter(f => f.where in MISTAKES);
        return ours.length === 3 ? findings : undefined;
      });
      for (const [where, id] of Object.entries(MISTAKES)) {
        expect(found).toContainEqual(
          expect.objectContaining({ id, where, cluster: 'local' }),
        );
      }
      expect(found.map(f => f.where)).not.toContain(
        `HorizontalPodAutoscaler ${NAMESPACE}/web-cpu`,
      );
      expect(found.filter(f => f.id === 'cluster-read-failed')).toEqual([]);

      await removeAll();
      await eventually('the mistakes gone', async () => {
        const findings = await clusterFindings();
        return findings.some(f => f.where in MISTAKES) ? undefined : findings;
      });
    });
  },
);
