import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { parsePlatform, Platform } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  ClusterQueue,
  ResourceFlavor,
  WorkloadPriorityClass,
} from './kueue/types';
import { nodeConfigLabels } from './devicePlugin/nodeConfigLabels';
import { renderPlatformManifests } from './renderPlatformManifests';
import {
  demoPlatform,
  seed000Platform,
  servingAndOcrBatchPlatform,
} from './__testUtils__/platforms';

function find<T extends KubernetesObject>(
  objects: KubernetesObject[],
  kind: string,
  name: string,
): T {
  const found = objects.find(o => o.kind === kind && o.metadata?.name === name);
  if (!found)
    throw new Error(
      `no ${kind} ${name} in ${objects
        .map(o => `${o.kind}/${o.metadata?.name}`)
        .join(', ')}`,
    );
  return found as T;
}

function quotas(queue: ClusterQueue): Record<string, Record<string, string>> {
  const result: Record<string, Record<string, string>> = {};
  for (const group of queue.spec.resourceGroups) {
    for (const flavor of group.flavors) {
      result[flavor.name] = Object.fromEntries(
        flavor.resources.map(r => [r.name, r.nominalQuota]),
      );
    }
  }
  return result;
}

describe('renderPlatformManifests', () => {
  it('renders the time-slicing and MPS device-plugin configs of the shared-T4 chatbots with 4 replicas', () => {
    const objects = renderPlatformManifests(seed000Platform());
    const configMap = find<V1ConfigMap>(
      objects,
      'ConfigMap',
      'device-plugin-config',
    );
    expect(configMap.metadata?.namespace).toBe('gpu-operator');
    const data = configMap.data!;
    expect(Object.keys(data)).toEqual(['default', 'mps-4', 'time-slicing-4']);
    expect(parse(data['time-slicing-4'])).toEqual({
      version: 'v1',
      flags: { migStrategy: 'none' },
      sharing: {
        timeSlicing: {
          renameByDefault: false,
          failRequestsGreaterThanOne: true,
          resources: [{ name: 'nvidia.com/gpu', replicas: 4 }],
        },
      },
    });
    expect(parse(data['mps-4']).sharing).toEqual({
      mps: {
        renameByDefault: false,
        failRequestsGreaterThanOne: true,
        resources: [{ name: 'nvidia.com/gpu', replicas: 4 }],
      },
    });
    expect(parse(data.default)).toEqual({
      version: 'v1',
      flags: { migStrategy: 'none' },
    });
    expect(nodeConfigLabels(seed000Platform())).toEqual({
      't4-timeslice': { 'nvidia.com/device-plugin.config': 'time-slicing-4' },
      't4-mps': { 'nvidia.com/device-plugin.config': 'mps-4' },
    });
  });

  it('gives the OCR batch team a ClusterQueue with flavor spot-l4 and 6 GPUs', () => {
    const objects = renderPlatformManifests(servingAndOcrBatchPlatform());
    const queue = find<ClusterQueue>(objects, 'ClusterQueue', 'gpu-batch');
    expect(queue.spec.resourceGroups[0]).toEqual({
      coveredResources: ['nvidia.com/gpu'],
      flavors: [
        {
          name: 'spot-l4',
          resources: [{ name: 'nvidia.com/gpu', nominalQuota: '6' }],
        },
      ],
    });
    expect(queue.spec.namespaceSelector).toEqual({
      matchExpressions: [
        {
          key: 'kubernetes.io/metadata.name',
          operator: 'In',
          values: ['batch'],
        },
      ],
    });
    expect(queue.spec.cohortName).toBe('gpu');
    expect(queue.spec).not.toHaveProperty('cohort');
    // cpu and memory are covered too, or Kueue would never admit a pod that requests them.
    expect(queue.spec.resourceGroups[1]).toEqual({
      coveredResources: ['cpu', 'memory'],
      flavors: [
        {
          name: 'gpu-host',
          resources: [
            { name: 'cpu', nominalQuota: '24' },
            { name: 'memory', nominalQuota: `${6 * (24 + 16)}Gi` },
          ],
        },
      ],
    });
  });

  it('derives MIG units and shared counts from the allowance and groups flavors by the resources they share', () => {
    const objects = renderPlatformManifests(demoPlatform());
    const queue = find<ClusterQueue>(
      objects,
      'ClusterQueue',
      'gpu-ml-platform',
    );
    expect(queue.spec.resourceGroups.map(g => g.coveredResources)).toEqual([
      ['nvidia.com/gpu'],
      ['gpu.backstage.io/gpu-units'],
      ['nvidia.com/gpu.shared'],
      ['cpu', 'memory'],
    ]);
    expect(quotas(queue)).toEqual({
      'l4-ondemand': { 'nvidia.com/gpu': '4' },
      // time-slicing x4 without renaming shares nvidia.com/gpu with the dedicated pools
      't4-timeslice': { 'nvidia.com/gpu': '4' },
      h100: { 'nvidia.com/gpu': '8' },
      // 4 GPUs = 4 x 5040 GPU units, which Kueue's transformations weigh MIG requests in
      'a100-mig': { 'gpu.backstage.io/gpu-units': '20160' },
      // MPS x4 with renameByDefault
      'l4-mps': { 'nvidia.com/gpu.shared': '4' },
      // Per pod the GPU quota could admit, 4 cores and its GPU memory rounded up + 16 GiB. a100-mig, per profile:
      // floor(20160 / 672) = 30 1g.10gb (10 GB = 9.3 GiB), floor(20160 / 1344) = 15 2g.20gb (18.6 GiB),
      // floor(20160 / 2352) = 8 3g.40gb (37.3 GiB). 4 + 4 + 8 + 30 + 15 + 8 + 4 = 73 pods.
      'gpu-host': {
        cpu: String(73 * 4),
        memory: `${
          4 * 40 + 4 * 20 + 8 * 96 + 30 * 26 + 15 * 35 + 8 * 54 + 4 * 22
        }Gi`,
      },
    });
    expect(queue.spec.resourceGroups[0].flavors.map(f => f.name)).toEqual([
      'l4-ondemand',
      't4-timeslice',
      'h100',
    ]);
  });

  it('lists every covered resource in every flavor of a group, with 0 where a pool has none', () => {
    const platform = demoPlatform();
    platform.pools.push({
      ...platform.pools.find(p => p.name === 'a100-mig')!,
      name: 'h100-mig',
      gpuModel: 'H100-80GB',
      nodeLabels: { 'gpu.example.com/pool': 'h100-mig' },
      sharing: { type: 'mig', layout: { '1g.10gb': 7 } },
    });
    platform.teams[0].gpuQuota['h100-mig'] = 1;
    platform.kueue.migQuota = 'profile-counts';
    const queue = find<ClusterQueue>(
      renderPlatformManifests(platform),
      'ClusterQueue',
      'gpu-ml-platform',
    );
    const migGroup = queue.spec.resourceGroups[1];
    expect(migGroup.flavors.map(f => f.name)).toEqual(['a100-mig', 'h100-mig']);
    // One GPU = 5040 units; seven 1g.10gb weigh 720 each on h100-mig.
    expect(quotas(queue)['h100-mig']).toEqual({
      'nvidia.com/mig-1g.10gb': '7',
      'nvidia.com/mig-2g.20gb': '0',
      'nvidia.com/mig-3g.40gb': '0',
    });
  });

  it('floors fractional GPU-equivalents to whole units', () => {
    const platform = demoPlatform();
    platform.teams[1].gpuQuota = {
      'l4-mps': 0.6,
      'a100-mig': 0.5,
      'l4-ondemand': 1.5,
    };
    const queue = find<ClusterQueue>(
      renderPlatformManifests(platform),
      'ClusterQueue',
      'gpu-search',
    );
    expect(quotas(queue)).toMatchObject({
      'l4-ondemand': { 'nvidia.com/gpu': '1' },
      // 0.5 x 5040
      'a100-mig': { 'gpu.backstage.io/gpu-units': '2520' },
      'l4-mps': { 'nvidia.com/gpu.shared': '2' },
    });
  });

  it('renders a ClusterQueue without resource groups for a team without quota', () => {
    const platform = demoPlatform();
    platform.teams.push({
      name: 'idle',
      namespaces: ['idle'],
      gpuQuota: {},
      monthlyBudget: '0',
    });
    const queue = find<ClusterQueue>(
      renderPlatformManifests(platform),
      'ClusterQueue',
      'gpu-idle',
    );
    expect(queue.spec.resourceGroups).toEqual([]);
  });

  it('uses spec.cohort for Kueue v1beta1', () => {
    const objects = renderPlatformManifests(
      demoPlatform('kueue.x-k8s.io/v1beta1'),
    );
    const queue = find<ClusterQueue>(objects, 'ClusterQueue', 'gpu-search');
    expect(queue.apiVersion).toBe('kueue.x-k8s.io/v1beta1');
    expect(queue.spec.cohort).toBe('gpu');
    expect(queue.spec).not.toHaveProperty('cohortName');
    expect(
      objects
        .filter(o => o.apiVersion?.startsWith('kueue'))
        .every(o => o.apiVersion === 'kueue.x-k8s.io/v1beta1'),
    ).toBe(true);
  });

  it('renders one ResourceFlavor per pool with its labels, taints and matching tolerations', () => {
    const objects = renderPlatformManifests(demoPlatform());
    const flavor = find<ResourceFlavor>(objects, 'ResourceFlavor', 'spot-l4');
    expect(flavor.spec).toEqual({
      nodeLabels: {
        'gpu.example.com/pool': 'spot-l4',
        'karpenter.sh/capacity-type': 'spot',
        'node.kubernetes.io/instance-type': 'g6.xlarge',
      },
      nodeTaints: [
        { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
        { key: 'gpu.example.com/spot', value: 'true', effect: 'NoSchedule' },
      ],
      tolerations: [
        {
          key: 'nvidia.com/gpu',
          operator: 'Equal',
          value: 'present',
          effect: 'NoSchedule',
        },
        {
          key: 'gpu.example.com/spot',
          operator: 'Equal',
          value: 'true',
          effect: 'NoSchedule',
        },
      ],
    });
    expect(
      find<ResourceFlavor>(objects, 'ResourceFlavor', 'gpu-host').spec,
    ).toEqual({});
    expect(objects.filter(o => o.kind === 'ResourceFlavor')).toHaveLength(7);
  });

  it('lists a taint the config repeats once on the flavor, as Kueue requires one taint per key and effect', () => {
    const platform = demoPlatform();
    const spot = platform.pools.find(p => p.name === 'spot-l4')!;
    // A repeat, the same taint with an empty value, another effect, a repeat.
    spot.nodeTaints = [
      { key: 'gpu.example.com/spot', effect: 'NoSchedule' },
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'gpu.example.com/spot', value: '', effect: 'NoSchedule' },
      { key: 'gpu.example.com/spot', value: 'true', effect: 'NoExecute' },
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ];
    const flavor = find<ResourceFlavor>(
      renderPlatformManifests(platform),
      'ResourceFlavor',
      'spot-l4',
    );
    expect(flavor.spec.nodeTaints).toEqual([
      { key: 'gpu.example.com/spot', effect: 'NoSchedule' },
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'gpu.example.com/spot', value: 'true', effect: 'NoExecute' },
    ]);
    expect(flavor.spec.tolerations).toEqual([
      { key: 'gpu.example.com/spot', operator: 'Exists', effect: 'NoSchedule' },
      {
        key: 'nvidia.com/gpu',
        operator: 'Equal',
        value: 'present',
        effect: 'NoSchedule',
      },
      {
        key: 'gpu.example.com/spot',
        operator: 'Equal',
        value: 'true',
        effect: 'NoExecute',
      },
    ]);
  });

  it('ranks WorkloadPriorityClasses with production highest', () => {
    const platform = demoPlatform();
    // production listed first still ranks highest
    platform.environments.reverse();
    const classes = renderPlatformManifests(platform).filter(
      (o): o is WorkloadPriorityClass => o.kind === 'WorkloadPriorityClass',
    );
    const values = Object.fromEntries(
      classes.map(c => [c.metadata.name, c.value]),
    );
    expect(values['gpu-production']).toBeGreaterThan(values['gpu-staging']);
    expect(values['gpu-production']).toBeGreaterThan(values['gpu-dev']);
    expect(values['gpu-staging']).toBeLessThan(values['gpu-dev']); // config order: staging now before dev
  });

  it('renders the MIG Manager ConfigMap and the node labels that select each config', () => {
    const platform = demoPlatform();
    const objects = renderPlatformManifests(platform, {
      gpuOperatorNamespace: 'nvidia',
    });
    const mig = find<V1ConfigMap>(objects, 'ConfigMap', 'custom-mig-config');
    expect(mig.metadata?.namespace).toBe('nvidia');
    expect(parse(mig.data!['config.yaml'])).toEqual({
      version: 'v1',
      'mig-configs': {
        'all-disabled': [{ devices: 'all', 'mig-enabled': false }],
        'all-balanced': [
          {
            devices: 'all',
            'mig-enabled': true,
            'mig-devices': { '1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1 },
          },
        ],
      },
    });
    const plugin = find<V1ConfigMap>(
      objects,
      'ConfigMap',
      'device-plugin-config',
    );
    expect(Object.keys(plugin.data!)).toEqual([
      'default',
      'mig-mixed',
      'mps-4-shared',
      'time-slicing-4',
    ]);
    expect(parse(plugin.data!['mig-mixed'])).toEqual({
      version: 'v1',
      flags: { migStrategy: 'mixed' },
    });
    expect(
      parse(plugin.data!['mps-4-shared']).sharing.mps.renameByDefault,
    ).toBe(true);
    expect(nodeConfigLabels(platform)).toEqual({
      'l4-ondemand': { 'nvidia.com/device-plugin.config': 'default' },
      'spot-l4': { 'nvidia.com/device-plugin.config': 'default' },
      'a100-mig': {
        'nvidia.com/device-plugin.config': 'mig-mixed',
        'nvidia.com/mig.config': 'all-balanced',
      },
      'l4-mps': { 'nvidia.com/device-plugin.config': 'mps-4-shared' },
      't4-timeslice': { 'nvidia.com/device-plugin.config': 'time-slicing-4' },
      h100: { 'nvidia.com/device-plugin.config': 'default' },
    });
  });

  it('sorts platform objects in apply order', () => {
    const kinds = renderPlatformManifests(demoPlatform()).map(o => o.kind);
    expect([...new Set(kinds)]).toEqual([
      'ConfigMap',
      'ResourceFlavor',
      'Cohort',
      'WorkloadPriorityClass',
      'ClusterQueue',
    ]);
  });

  it('can leave cpu and memory uncovered', () => {
    const objects = renderPlatformManifests(servingAndOcrBatchPlatform(), {
      hostResourceFlavor: false,
    });
    expect(objects.some(o => o.metadata?.name === 'gpu-host')).toBe(false);
    const queue = find<ClusterQueue>(objects, 'ClusterQueue', 'gpu-batch');
    expect(queue.spec.resourceGroups).toHaveLength(1);
  });

  describe('refuses platforms it cannot render', () => {
    function platformWith(change: (p: Platform) => void): Platform {
      const platform = demoPlatform();
      change(platform);
      return platform;
    }

    it('a pool with more than 8 node labels', () => {
      const platform = platformWith(p => {
        for (let i = 0; i < 9; i++)
          p.pools[0].nodeLabels[`example.com/l${i}`] = 'x';
      });
      expect(() => renderPlatformManifests(platform)).toThrow(/at most 8/);
    });

    it('a pool with two values for one taint key and effect', () => {
      const platform = platformWith(p => {
        p.pools[1].nodeTaints.push({
          key: 'gpu.example.com/spot',
          value: 'false',
          effect: 'NoSchedule',
        });
      });
      expect(() => renderPlatformManifests(platform)).toThrow(
        /Pool spot-l4 has two NoSchedule taints with key gpu.example.com\/spot \(values "true" and "false"\)/,
      );
    });

    it('two pools selecting one device-plugin config name for different settings', () => {
      const platform = platformWith(p => {
        p.pools.find(x => x.name === 'l4-mps')!.nodeLabels[
          'nvidia.com/device-plugin.config'
        ] = 'shared';
        p.pools.find(x => x.name === 't4-timeslice')!.nodeLabels[
          'nvidia.com/device-plugin.config'
        ] = 'shared';
      });
      expect(() => renderPlatformManifests(platform)).toThrow(
        expect.objectContaining({ name: 'InputError', code: 'INVALID_CONFIG' }),
      );
    });

    it('two pools offering one resource that pods cannot tell apart', () => {
      const platform = platformWith(p => {
        const h100 = p.pools.find(x => x.name === 'h100')!;
        h100.nodeLabels = { 'node.kubernetes.io/instance-type': 'g6.xlarge' };
      });
      expect(() => renderPlatformManifests(platform)).toThrow(
        /Pools l4-ondemand and h100 both offer nvidia\.com\/gpu/,
      );
    });

    it('a pool named like the host flavor', () => {
      const platform = platformWith(p => {
        p.pools[0].name = 'gpu-host';
      });
      expect(() => renderPlatformManifests(platform)).toThrow(/reserved/);
    });

    it('a MIG layout with a profile the GPU does not have', () => {
      const platform = platformWith(p => {
        p.pools.find(x => x.name === 'a100-mig')!.sharing = {
          type: 'mig',
          layout: { '1g.5gb': 7 },
        };
      });
      expect(() => renderPlatformManifests(platform)).toThrow(
        /1g\.5gb.*allowed: 1g\.10gb/,
      );
    });
  });

  it('honours a pool that names its own MIG layout label', () => {
    const platform = parsePlatform({
      pools: [
        {
          name: 'a100',
          gpuModel: 'A100-40GB',
          gpusPerNode: 8,
          maxNodes: 1,
          pricePerNodeHour: 21.958,
          sharing: { type: 'mig', layout: { '1g.5gb': 3, '2g.10gb': 2 } },
        },
      ],
    });
    expect(nodeConfigLabels(platform).a100['nvidia.com/mig.config']).toBe(
      'mig-3x1g.5gb-2x2g.10gb',
    );
    platform.pools[0].nodeLabels['nvidia.com/mig.config'] = 'inference';
    const mig = find<V1ConfigMap>(
      renderPlatformManifests(platform),
      'ConfigMap',
      'custom-mig-config',
    );
    expect(Object.keys(parse(mig.data!['config.yaml'])['mig-configs'])).toEqual(
      ['all-disabled', 'inference'],
    );
  });
});
