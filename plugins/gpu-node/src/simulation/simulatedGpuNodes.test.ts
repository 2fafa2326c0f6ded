import type {
  KubernetesObject,
  V1ConfigMap,
  V1Deployment,
  V1Node,
  V1PodSpec,
  V1Toleration,
} from '@kubernetes/client-node';
import fc from 'fast-check';
import { parse } from 'yaml';
import {
  checkpointFor,
  defaultDtypeFor,
  fitSlices,
  isDns1123Label,
  parsePlatform,
  Platform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  DEVICE_PLUGIN_CONFIG_LABEL,
  MIG_CONFIG_LABEL,
  poolNodeConfigs,
} from '../devicePlugin/poolNodeConfigs';
import { poolResources } from '../kueue/poolResources';
import { renderPlatformManifests } from '../renderPlatformManifests';
import { renderServiceManifests } from '../renderServiceManifests';
import { renderableRequest } from '../__testUtils__/arbitraries';
import { demoPlatform, placementOf } from '../__testUtils__/platforms';
import { validateManifests } from '../__testUtils__/validateManifests';
import { advertisedGpuResources, simulatedGpuNodes } from './simulatedGpuNodes';

const HOST_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

/**
 * Shared GPUs only: one T4 time-sliced x4 (not renamed), two nodes of two T4s with MPS x2 renamed to
 * `nvidia.com/gpu.shared`, and a node of four A30s split 2 x 1g.6gb + 1 x 2g.12gb behind a taint without a value.
 */
function sharedPlatform(): Platform {
  return parsePlatform({
    pools: [
      {
        name: 't4-timeslice',
        gpuModel: 'T4',
        gpusPerNode: 1,
        maxNodes: 1,
        pricePerNodeHour: 0.526,
        nodeLabels: { 'gpu.example.com/pool': 't4-timeslice' },
        sharing: { type: 'time-slicing', replicas: 4 },
      },
      {
        name: 't4-mps',
        gpuModel: 'T4',
        gpusPerNode: 2,
        maxNodes: 2,
        pricePerNodeHour: 1.2,
        nodeLabels: { 'gpu.example.com/pool': 't4-mps' },
        sharing: { type: 'mps', replicas: 2 },
        renameByDefault: true,
      },
      {
        name: 'a30-mig',
        gpuModel: 'A30-24GB',
        gpusPerNode: 4,
        maxNodes: 1,
        pricePerNodeHour: 4,
        nodeLabels: { 'gpu.example.com/pool': 'a30-mig' },
        nodeTaints: [{ key: 'gpu.example.com/mig', effect: 'NoSchedule' }],
        sharing: { type: 'mig', layout: { '1g.6gb': 2, '2g.12gb': 1 } },
      },
    ],
    teams: [
      {
        name: 'chatbots',
        gpuQuota: { 't4-timeslice': 1, 't4-mps': 2, 'a30-mig': 2 },
        monthlyBudget: 5000,
      },
    ],
  });
}

/** Whole L4s, on-demand and spot, behind the GPU taint (the spot pool also behind a spot taint). */
function spotPlatform(): Platform {
  const gpuTaint = {
    key: 'nvidia.com/gpu',
    value: 'present',
    effect: 'NoSchedule',
  };
  return parsePlatform({
    pools: [
      {
        name: 'l4-ondemand',
        gpuModel: 'L4',
        gpusPerNode: 1,
        maxNodes: 3,
        capacityType: 'on-demand',
        pricePerNodeHour: 0.8048,
        nodeLabels: { 'gpu.example.com/pool': 'l4-ondemand' },
        nodeTaints: [gpuTaint],
      },
      {
        name: 'spot-l4',
        gpuModel: 'L4',
        gpusPerNode: 4,
        maxNodes: 2,
        capacityType: 'spot',
        pricePerNodeHour: 1.5,
        nodeLabels: { 'gpu.example.com/pool': 'spot-l4' },
        nodeTaints: [
          gpuTaint,
          { key: 'gpu.example.com/spot', value: 'true', effect: 'NoSchedule' },
        ],
      },
    ],
    teams: [
      {
        name: 'serving',
        gpuQuota: { 'l4-ondemand': 3, 'spot-l4': 8 },
        monthlyBudget: 5000,
      },
    ],
  });
}

const platforms: Array<[string, () => Platform]> = [
  ['demo', demoPlatform],
  ['shared', sharedPlatform],
  ['spot', spotPlatform],
];

function nodesOf(platform: Platform): V1Node[] {
  return simulatedGpuNodes(platform) as V1Node[];
}

function poolNodes(nodes: V1Node[], pool: string): V1Node[] {
  return nodes.filter(n =>
    new RegExp(`^kwok-${pool}-\\d+$`).test(n.metadata!.name!),
  );
}

function gpuResources(resources: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(resources).filter(([name]) => !HOST_RESOURCES.has(name)),
  );
}

const UNITS: Record<string, number> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** A Kubernetes quantity as a number (the suffixes the renderers use). */
function quantity(value: string): number {
  const match = /^([0-9.]+)([a-zA-Z]*)$/.exec(value);
  if (!match || (match[2] && UNITS[match[2]] === undefined)) {
    throw new Error(`unparsed quantity ${value}`);
  }
  return Number(match[1]) * (match[2] ? UNITS[match[2]] : 1);
}

/** What the scheduler counts for a pod: max(sum of containers, each init container), requests defaulting to limits. */
function podRequests(spec: V1PodSpec): Record<string, number> {
  const of = (c: V1PodSpec['containers'][number]) => ({
    ...(c.resources?.limits ?? {}),
    ...(c.resources?.requests ?? {}),
  });
  const total: Record<string, number> = {};
  for (const container of spec.containers) {
    for (const [name, value] of Object.entries(of(container))) {
      total[name] = (total[name] ?? 0) + quantity(value);
    }
  }
  for (const init of spec.initContainers ?? []) {
    for (const [name, value] of Object.entries(of(init))) {
      total[name] = Math.max(total[name] ?? 0, quantity(value));
    }
  }
  return total;
}

type Taint = NonNullable<NonNullable<V1Node['spec']>['taints']>[number];

/** Whether the tolerations let a pod onto a node with this taint (PreferNoSchedule never keeps it off). */
function tolerated(tolerations: V1Toleration[], taint: Taint): boolean {
  return (
    taint.effect === 'PreferNoSchedule' ||
    tolerations.some(
      t =>
        (!t.effect || t.effect === taint.effect) &&
        (t.key === undefined ? t.operator === 'Exists' : t.key === taint.key) &&
        (t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '')),
    )
  );
}

/** Why the pod cannot run on the (empty) node, or undefined when it can: node selector, taints, allocatable. */
function unschedulableReason(
  spec: V1PodSpec,
  node: V1Node,
): string | undefined {
  const labels = node.metadata!.labels!;
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    if (labels[key] !== value) return `node selector ${key}=${value}`;
  }
  const untolerated = (node.spec?.taints ?? []).filter(
    t => !tolerated(spec.tolerations ?? [], t),
  );
  if (untolerated.length > 0) {
    return `untolerated taint ${untolerated[0].key}`;
  }
  const allocatable = node.status!.allocatable!;
  for (const [name, amount] of Object.entries(podRequests(spec))) {
    const have = allocatable[name] ? quantity(allocatable[name]) : 0;
    if (have < amount) return `Insufficient ${name} (${amount} > ${have})`;
  }
  return undefined;
}

function podSpecOf(objects: KubernetesObject[]): V1PodSpec {
  const deployment = objects.find(o => o.kind === 'Deployment') as
    | V1Deployment
    | undefined;
  return deployment!.spec!.template.spec!;
}

/** Every node the pod of the rendered service fits, with the reasons it does not fit the others. */
function fitNodes(nodes: V1Node[], spec: V1PodSpec) {
  const fits: string[] = [];
  const reasons: string[] = [];
  for (const node of nodes) {
    const reason = unschedulableReason(spec, node);
    if (reason) reasons.push(`${node.metadata!.name}: ${reason}`);
    else fits.push(node.metadata!.name!);
  }
  return { fits, reasons };
}

const base: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.2-3b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 8,
  replicas: 1,
  environment: 'dev',
};

/** A few requests of different sizes: small enough for a shared T4, an 8B model, a 70B one that needs several GPUs. */
const requests: ServiceRequest[] = [
  {
    ...base,
    name: 'tiny',
    dtype: 'int4',
    maxModelLen: 1024,
    concurrency: 2,
  },
  { ...base, name: 'chat' },
  {
    ...base,
    name: 'tiny-ollama',
    runtime: 'ollama',
    dtype: 'int4',
    maxModelLen: 1024,
    concurrency: 2,
  },
  { ...base, name: 'summariser', model: 'llama-3.1-8b', maxModelLen: 8192 },
  { ...base, name: 'big', model: 'llama-3.1-70b', dtype: 'fp8' },
];

describe('simulatedGpuNodes', () => {
  it.each(platforms)(
    'renders maxNodes nodes per pool on the %s platform, named <prefix><pool>-<i>',
    (_, make) => {
      const platform = make();
      const nodes = nodesOf(platform);
      expect(nodes).toHaveLength(
        platform.pools.reduce((sum, p) => sum + p.maxNodes, 0),
      );
      for (const pool of platform.pools) {
        expect(poolNodes(nodes, pool.name).map(n => n.metadata!.name)).toEqual(
          Array.from(
            { length: pool.maxNodes },
            (__, i) => `kwok-${pool.name}-${i}`,
          ),
        );
      }
      const names = nodes.map(n => n.metadata!.name!);
      expect(new Set(names).size).toBe(names.length);
      expect(names.every(n => isDns1123Label(n))).toBe(true);
    },
  );

  it('gives the demo platform its pools with the GPU resources the device plugin advertises', () => {
    const nodes = nodesOf(demoPlatform());
    const summary = Object.fromEntries(
      demoPlatform().pools.map(pool => {
        const ofPool = poolNodes(nodes, pool.name);
        return [
          pool.name,
          {
            nodes: ofPool.length,
            gpu: gpuResources(ofPool[0].status!.allocatable!),
          },
        ];
      }),
    );
    expect(summary).toEqual({
      'l4-ondemand': { nodes: 4, gpu: { 'nvidia.com/gpu': '1' } },
      'spot-l4': { nodes: 6, gpu: { 'nvidia.com/gpu': '1' } },
      'a100-mig': {
        nodes: 1,
        gpu: {
          'nvidia.com/mig-1g.10gb': '16',
          'nvidia.com/mig-2g.20gb': '8',
          'nvidia.com/mig-3g.40gb': '8',
        },
      },
      'l4-mps': { nodes: 2, gpu: { 'nvidia.com/gpu.shared': '4' } },
      't4-timeslice': { nodes: 2, gpu: { 'nvidia.com/gpu': '4' } },
      h100: { nodes: 1, gpu: { 'nvidia.com/gpu': '8' } },
    });
  });

  it('advertises per MIG profile the layout count x gpusPerNode and no nvidia.com/gpu', () => {
    const platform = demoPlatform();
    const pool = platform.pools.find(p => p.sharing.type === 'mig')!;
    const layout = (pool.sharing as { layout: Record<string, number> }).layout;
    for (const node of poolNodes(nodesOf(platform), pool.name)) {
      const allocatable = node.status!.allocatable!;
      expect(allocatable['nvidia.com/gpu']).toBeUndefined();
      expect(gpuResources(allocatable)).toEqual(
        Object.fromEntries(
          Object.entries(layout).map(([profile, count]) => [
            `nvidia.com/mig-${profile}`,
            String(count * pool.gpusPerNode),
          ]),
        ),
      );
      expect(node.status!.capacity).toEqual(allocatable);
      expect(node.metadata!.labels!['nvidia.com/mig.strategy']).toBe('mixed');
    }
  });

  it('advertises R replicas per GPU for MPS and time-slicing, renamed to nvidia.com/gpu.shared with renameByDefault', () => {
    const demo = nodesOf(demoPlatform());
    const mps = poolNodes(demo, 'l4-mps')[0];
    expect(gpuResources(mps.status!.allocatable!)).toEqual({
      'nvidia.com/gpu.shared': '4',
    });
    expect(mps.metadata!.labels!['nvidia.com/gpu.product']).toBe('NVIDIA-L4');
    expect(mps.metadata!.labels!['nvidia.com/gpu.replicas']).toBe('4');
    expect(mps.metadata!.labels!['nvidia.com/gpu.sharing-strategy']).toBe(
      'mps',
    );
    const sliced = poolNodes(demo, 't4-timeslice')[0];
    expect(gpuResources(sliced.status!.allocatable!)).toEqual({
      'nvidia.com/gpu': '4',
    });
    expect(sliced.metadata!.labels!['nvidia.com/gpu.product']).toBe(
      'Tesla-T4-SHARED',
    );

    const shared = nodesOf(sharedPlatform());
    expect(
      gpuResources(poolNodes(shared, 't4-timeslice')[0].status!.allocatable!),
    ).toEqual({ 'nvidia.com/gpu': '4' });
    for (const node of poolNodes(shared, 't4-mps')) {
      expect(gpuResources(node.status!.allocatable!)).toEqual({
        'nvidia.com/gpu.shared': '4',
      });
    }
    expect(
      gpuResources(poolNodes(shared, 'a30-mig')[0].status!.allocatable!),
    ).toEqual({ 'nvidia.com/mig-1g.6gb': '8', 'nvidia.com/mig-2g.12gb': '4' });
  });

  it('follows the rendered device-plugin config, not the pool', () => {
    const [config] = poolNodeConfigs(sharedPlatform());
    const block = config.devicePlugin.config.sharing!.timeSlicing!;
    expect(
      advertisedGpuResources({
        ...config,
        pool: { ...config.pool, gpusPerNode: 2 },
        devicePlugin: {
          ...config.devicePlugin,
          config: {
            ...config.devicePlugin.config,
            sharing: {
              timeSlicing: {
                ...block,
                renameByDefault: true,
                resources: [{ name: 'nvidia.com/gpu', replicas: 8 }],
              },
            },
          },
        },
      }),
    ).toEqual({ 'nvidia.com/gpu.shared': '16' });
  });

  it.each(platforms)(
    'advertises on the %s platform what the ClusterQueues give quota in (poolResources x gpusPerNode)',
    (_, make) => {
      const platform = make();
      for (const config of poolNodeConfigs(platform)) {
        expect(advertisedGpuResources(config)).toEqual(
          Object.fromEntries(
            poolResources(platform, config.pool).map(r => [
              r.name,
              String(r.perGpu * config.pool.gpusPerNode),
            ]),
          ),
        );
      }
    },
  );

  it.each(platforms)(
    'labels the nodes of the %s platform with the config names the device-plugin and MIG ConfigMaps hold',
    (_, make) => {
      const platform = make();
      const objects = renderPlatformManifests(platform);
      const configMaps = objects.filter(
        o => o.kind === 'ConfigMap',
      ) as V1ConfigMap[];
      const pluginConfigs = configMaps.find(
        c => c.metadata!.name === 'device-plugin-config',
      )!.data!;
      const migConfigMap = configMaps.find(
        c => c.metadata!.name === 'custom-mig-config',
      );
      const migConfigs = migConfigMap
        ? parse(migConfigMap.data!['config.yaml'])['mig-configs']
        : {};
      const nodes = nodesOf(platform);
      for (const config of poolNodeConfigs(platform)) {
        for (const node of poolNodes(nodes, config.pool.name)) {
          const labels = node.metadata!.labels!;
          const pluginName = labels[DEVICE_PLUGIN_CONFIG_LABEL];
          expect(pluginName).toBe(config.devicePlugin.name);
          expect(parse(pluginConfigs[pluginName])).toEqual(
            config.devicePlugin.config,
          );
          const migName = labels[MIG_CONFIG_LABEL];
          expect(
            migName === undefined ? undefined : migConfigs[migName],
          ).toEqual(
            config.mig && [
              {
                devices: 'all',
                'mig-enabled': true,
                'mig-devices': config.mig.devices,
              },
            ],
          );
          expect(labels).toMatchObject({
            ...config.pool.nodeLabels,
            'kubernetes.io/hostname': node.metadata!.name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
            type: 'kwok',
            'nvidia.com/gpu.count': String(config.pool.gpusPerNode),
          });
          expect(labels['nvidia.com/gpu.product']).toMatch(
            new RegExp(
              `^${platform.gpuModels[config.pool.gpuModel].productLabel}`,
            ),
          );
          expect(node.metadata!.annotations).toEqual({
            'kwok.x-k8s.io/node': 'fake',
          });
        }
      }
    },
  );

  it.each(platforms)(
    "carries on the %s platform exactly the pool's taints (no kwok taint)",
    (_, make) => {
      const platform = make();
      const nodes = nodesOf(platform);
      for (const pool of platform.pools) {
        for (const node of poolNodes(nodes, pool.name)) {
          expect(node.spec!.taints ?? []).toEqual(pool.nodeTaints);
        }
      }
    },
  );

  it('honours namePrefix and keeps long names DNS-1123 labels', () => {
    const platform = demoPlatform();
    const names = simulatedGpuNodes(platform, { namePrefix: 'sim-' }).map(
      n => n.metadata!.name!,
    );
    expect(names[0]).toBe('sim-l4-ondemand-0');
    const long = simulatedGpuNodes(platform, {
      namePrefix: 'a-very-long-prefix-for-simulated-gpu-nodes-of-the-test-',
    }).map(n => n.metadata!.name!);
    expect(long.every(n => isDns1123Label(n))).toBe(true);
    expect(new Set(long).size).toBe(long.length);
  });

  it('gives each node a taint the config repeats once (a Node holds one taint per key and effect)', () => {
    const platform = demoPlatform();
    const pool = platform.pools[0];
    pool.nodeTaints = [...pool.nodeTaints, ...pool.nodeTaints];
    expect(poolNodes(nodesOf(platform), pool.name)[0].spec!.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ]);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(nodesOf(demoPlatform()))).toBe(
      JSON.stringify(nodesOf(demoPlatform())),
    );
  });

  it('renders valid Node objects', () => {
    const nodes = platforms.flatMap(([, make]) => simulatedGpuNodes(make()));
    expect(validateManifests(nodes)).toEqual([]);
  });

  describe('every rendered service fits the nodes of its pool', () => {
    const cases = platforms.flatMap(([label, make]) => {
      const platform = make();
      return requests.flatMap(request => {
        const team = platform.teams[0].name;
        const owned = { ...request, team };
        if (
          !checkpointFor(
            platform.models[owned.model],
            owned.dtype ??
              defaultDtypeFor(platform.models[owned.model], owned.runtime),
            owned.runtime,
          )
        )
          return [];
        return fitSlices(platform, owned)
          .filter(f => f.fits)
          .map(f => ({
            label: `${label}: ${owned.name} ${f.slice.tier} on ${f.slice.pool}${
              f.slice.migProfile ? ` (${f.slice.migProfile})` : ''
            } x${f.slice.gpusPerReplica}`,
            make,
            request: owned,
            placement: placementOf(f.slice),
          }));
      });
    });

    it('covers every tier and every pool of the demo platform', () => {
      const demo = cases.filter(c => c.label.startsWith('demo'));
      expect(new Set(demo.map(c => c.placement.tier))).toEqual(
        new Set(['dedicated', 'mig', 'mps', 'time-sliced']),
      );
      expect(new Set(demo.map(c => c.placement.pool))).toEqual(
        new Set(demoPlatform().pools.map(p => p.name)),
      );
    });

    it.each(cases)('$label', ({ make, request, placement }) => {
      const platform = make();
      const nodes = nodesOf(platform);
      const spec = podSpecOf(
        renderServiceManifests(platform, request, placement, {
          serviceId: 'svc-1',
        }),
      );
      // The pod fits exactly its pool's nodes: the node selector keeps it off the others, and nothing else may.
      expect(fitNodes(nodes, spec).fits).toEqual(
        poolNodes(nodes, placement.pool).map(n => n.metadata!.name),
      );
      expect(fitNodes(poolNodes(nodes, placement.pool), spec).reasons).toEqual(
        [],
      );
    });

    it('holds for generated requests on the demo platform', () => {
      const platform = demoPlatform();
      const nodes = nodesOf(platform);
      fc.assert(
        fc.property(renderableRequest(platform), picked => {
          fc.pre(picked !== undefined);
          const { request, fit } = picked!;
          const placement = placementOf(fit.slice);
          const spec = podSpecOf(
            renderServiceManifests(platform, request, placement, {
              serviceId: 'svc-1',
              // The generated requests may scale to zero, which needs a wake trigger outside the pods.
              wakeTrigger: {
                type: 'prometheus',
                query: 'sum(gateway_pending_requests{service="{{service}}"})',
              },
            }),
          );
          const { fits, reasons } = fitNodes(
            poolNodes(nodes, placement.pool),
            spec,
          );
          expect(reasons).toEqual([]);
          expect(fits.length).toBe(
            platform.pools.find(p => p.name === placement.pool)!.maxNodes,
          );
        }),
        { numRuns: 200 },
      );
    });

    it('catches a mismatch: pods rendered for unrenamed shared GPUs do not fit nodes that advertise nvidia.com/gpu.shared', () => {
      const platform = demoPlatform();
      const renderedFor: Platform = {
        ...platform,
        pools: platform.pools.map(p =>
          p.name === 'l4-mps' ? { ...p, renameByDefault: false } : p,
        ),
      };
      const request = { ...requests[0] };
      const fit = fitSlices(renderedFor, request).find(
        f => f.fits && f.slice.pool === 'l4-mps',
      )!;
      const spec = podSpecOf(
        renderServiceManifests(renderedFor, request, placementOf(fit.slice), {
          serviceId: 'svc-1',
        }),
      );
      const { fits, reasons } = fitNodes(nodesOf(platform), spec);
      expect(fits).toEqual([]);
      expect(reasons.filter(r => r.startsWith('kwok-l4-mps'))).toEqual([
        'kwok-l4-mps-0: Insufficient nvidia.com/gpu (1 > 0)',
        'kwok-l4-mps-1: Insufficient nvidia.com/gpu (1 > 0)',
      ]);
    });
  });
});
