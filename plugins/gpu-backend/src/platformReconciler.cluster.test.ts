import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEVICE_PLUGIN_CONFIG_LABEL,
  FIELD_MANAGER,
  MIG_CONFIG_LABEL,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { describeOnLocalCluster } from '@gpu-platform/backstage-plugin-gpu-node/testUtils';
import type { V1Node, V1ObjectMeta } from '@kubernetes/client-node';
import {
  createNamespaces,
  eventually,
  localClusterClients,
  reconcileNow,
  startLocalClusterBackend,
} from './__testUtils__/localCluster';
import { schedulerCapture } from './__testUtils__/schedulerCapture';

jest.setTimeout(180_000);

const TEAM = 'cluster-platform';
const NAMESPACE = 'cluster-platform';
const GPU_OPERATOR = 'gpu-operator';
const MONITORING = 'monitoring';
const KARPENTER = { group: 'karpenter.sh', version: 'v1', plural: 'nodepools' };
const PROMETHEUS_RULES = {
  group: 'monitoring.coreos.com',
  version: 'v1',
  plural: 'prometheusrules',
};
const KUEUE = { group: 'kueue.x-k8s.io', version: 'v1beta2' };

/** The demo pools with only h100 under Karpenter: every other pool's nodes get their config labels from us. */
const pools = demoPlatformConfig.pools.map(pool =>
  pool.name === 'h100' ? pool : { ...pool, karpenter: { managed: false } },
);

type Meta = { metadata?: V1ObjectMeta };

function appliedByUs(object: Meta): boolean {
  return (object.metadata?.managedFields ?? []).some(
    f => f.manager === FIELD_MANAGER && f.operation === 'Apply',
  );
}

describeOnLocalCluster(
  'Platform objects delivered and reconciled on a real API server',
  kubeconfig => {
    const clients = localClusterClients(kubeconfig);
    const capture = schedulerCapture();
    let http: Awaited<ReturnType<typeof startLocalClusterBackend>>['http'];
    let stop: () => Promise<void>;

    const reconcileAndReport = () => reconcileNow(http, capture.scheduler());

    const readConfigMap = (name: string) =>
      clients.core.readNamespacedConfigMap({ name, namespace: GPU_OPERATOR });
    const readNodePool = async () =>
      (await clients.custom.getClusterCustomObject({
        ...KARPENTER,
        name: 'h100',
      })) as Meta & {
        spec: { template: { metadata: { labels: Record<string, string> } } };
      };
    const readAlertRule = async () =>
      (await clients.custom.getNamespacedCustomObject({
        ...PROMETHEUS_RULES,
        namespace: MONITORING,
        name: 'gpu-alerts',
      })) as Meta;
    const poolNodes = async (pool: string) =>
      (
        await clients.core.listNode({
          labelSelector: `gpu.example.com/pool=${pool}`,
        })
      ).items;

    /** Sets a node label as kubectl would (an update), retrying on the conflicts kwok's heartbeats cause. */
    async function relabel(node: string, key: string, value: string) {
      for (let attempt = 1; ; attempt++) {
        const live: V1Node = await clients.core.readNode({ name: node });
        live.metadata!.labels = { ...live.metadata!.labels, [key]: value };
        try {
          await clients.core.replaceNode({ name: node, body: live });
          return;
        } catch (error) {
          if ((error as { code?: number }).code !== 409 || attempt === 5) {
            throw error;
          }
        }
      }
    }

    // The ResourceFlavors are shared by every suite on the cluster: one that another suite (or Flux, in the GitOps
    // suite) wrote first is in the desired state already, so this suite's reconcile rightly sends nothing for it.
    let flavorWrittenBefore = false;

    beforeAll(async () => {
      // The GPU Operator's and Prometheus's namespaces, as their installs create them; and the team's own.
      await createNamespaces(clients, [GPU_OPERATOR, MONITORING, NAMESPACE]);
      flavorWrittenBefore = await clients.custom
        .getClusterCustomObject({
          ...KUEUE,
          plural: 'resourceflavors',
          name: 'h100',
        })
        .then(
          () => true,
          () => false,
        );
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
        gpu: { pools, reconcile: { frequency: { hours: 1 } } },
        features: [capture.module],
        // Its first reconcile is what the first test looks at.
        platformLoopAtStart: false,
      });
      http = started.http;
      stop = () => started.backend.stop();
    });

    afterAll(async () => {
      await stop?.();
    });

    it('delivers every platform object with our field manager and the pools’ node config labels, then sends nothing when nothing changed', async () => {
      const first = await reconcileAndReport();
      expect(first).toMatchObject({
        checked: true,
        applied: true,
        parts: ['gpuOperator', 'kueue', 'nodePools', 'alerts', 'nodeLabels'],
      });
      expect(first.undelivered).toBeUndefined();

      const devicePlugin = await readConfigMap('device-plugin-config');
      expect(appliedByUs(devicePlugin)).toBe(true);
      expect(Object.keys(devicePlugin.data!)).toEqual(
        expect.arrayContaining([
          'default',
          'mig-mixed',
          'mps-4-shared',
          'time-slicing-4',
        ]),
      );
      expect(appliedByUs(await readConfigMap('custom-mig-config'))).toBe(true);
      const sharedFlavor = flavorWrittenBefore
        ? []
        : [['resourceflavors', 'h100']];
      for (const [plural, name] of [
        ...sharedFlavor,
        ['cohorts', `suite-${TEAM}`],
        ['clusterqueues', `gpu-${TEAM}`],
      ]) {
        const object = (await clients.custom.getClusterCustomObject({
          ...KUEUE,
          plural,
          name,
        })) as Meta;
        expect(appliedByUs(object)).toBe(true);
      }
      expect(
        appliedByUs(
          (await clients.custom.getNamespacedCustomObject({
            ...KUEUE,
            plural: 'localqueues',
            namespace: NAMESPACE,
            name: `gpu-${TEAM}`,
          })) as Meta,
        ),
      ).toBe(true);
      const nodePool = await readNodePool();
      expect(appliedByUs(nodePool)).toBe(true);
      expect(nodePool.spec.template.metadata.labels).toMatchObject({
        [DEVICE_PLUGIN_CONFIG_LABEL]: 'default',
      });
      expect(appliedByUs(await readAlertRule())).toBe(true);

      for (const node of await poolNodes('l4-mps')) {
        expect(node.metadata!.labels![DEVICE_PLUGIN_CONFIG_LABEL]).toBe(
          'mps-4-shared',
        );
      }
      const [mig] = await poolNodes('a100-mig');
      expect(mig.metadata!.labels).toMatchObject({
        [DEVICE_PLUGIN_CONFIG_LABEL]: 'mig-mixed',
        [MIG_CONFIG_LABEL]: 'all-balanced',
      });

      // Nothing changed: nothing drifted, and no object we wrote got a write of ours (no controller writes these).
      const versions = async () => [
        (await readConfigMap('device-plugin-config')).metadata!.resourceVersion,
        (await readConfigMap('custom-mig-config')).metadata!.resourceVersion,
        (await readNodePool()).metadata?.resourceVersion,
        (await readAlertRule()).metadata?.resourceVersion,
      ];
      const nodeEntries = async () =>
        (await poolNodes('t4-timeslice')).map(n =>
          (n.metadata!.managedFields ?? []).filter(
            f => f.manager === FIELD_MANAGER,
          ),
        );
      const before = await versions();
      const nodesBefore = await nodeEntries();
      const second = await reconcileAndReport();
      expect(second).toMatchObject({
        checked: true,
        applied: true,
        inSync: true,
        drifted: [],
      });
      expect(await versions()).toEqual(before);
      expect(await nodeEntries()).toEqual(nodesBefore);
    });

    it('repairs a deleted ConfigMap, a deleted NodePool and a node label edited behind its back, and reports them as drift', async () => {
      await reconcileAndReport();
      const [node] = await poolNodes('t4-timeslice');
      const name = node.metadata!.name!;

      await clients.core.deleteNamespacedConfigMap({
        name: 'device-plugin-config',
        namespace: GPU_OPERATOR,
      });
      await clients.custom.deleteClusterCustomObject({
        ...KARPENTER,
        name: 'h100',
      });
      await relabel(name, DEVICE_PLUGIN_CONFIG_LABEL, 'default');
      await eventually('the NodePool gone', async () => {
        try {
          await readNodePool();
          return undefined;
        } catch (error) {
          return (error as { code?: number }).code === 404 ? true : undefined;
        }
      });

      const repaired = await reconcileAndReport();
      expect(repaired).toMatchObject({
        checked: true,
        applied: true,
        inSync: false,
      });
      expect(repaired.drifted).toEqual([
        expect.objectContaining({
          kind: 'ConfigMap',
          namespace: GPU_OPERATOR,
          name: 'device-plugin-config',
          state: 'missing',
        }),
        expect.objectContaining({
          kind: 'NodePool',
          name: 'h100',
          state: 'missing',
        }),
        {
          apiVersion: 'v1',
          kind: 'Node',
          name,
          state: 'changed',
          fields: [
            {
              path: `metadata.labels["${DEVICE_PLUGIN_CONFIG_LABEL}"]`,
              expected: 'time-slicing-4',
              actual: 'default',
            },
          ],
        },
      ]);
      expect(appliedByUs(await readConfigMap('device-plugin-config'))).toBe(
        true,
      );
      expect(appliedByUs(await readNodePool())).toBe(true);
      const relabelled = await clients.core.readNode({ name });
      expect(relabelled.metadata!.labels![DEVICE_PLUGIN_CONFIG_LABEL]).toBe(
        'time-slicing-4',
      );
      // Our field manager now owns that label, and only the config labels of the node.
      const ours = relabelled.metadata!.managedFields!.find(
        f => f.manager === FIELD_MANAGER && f.operation === 'Apply',
      );
      expect(ours?.fieldsV1).toEqual({
        'f:metadata': {
          'f:labels': { [`f:${DEVICE_PLUGIN_CONFIG_LABEL}`]: {} },
        },
      });

      expect((await reconcileAndReport()).inSync).toBe(true);
    });
  },
);
