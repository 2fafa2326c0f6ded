import type { KubernetesObject } from '@kubernetes/client-node';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  KubernetesObjectClient,
  KubernetesRequestError,
  ListOptions,
} from '../cluster';
import { ServiceRecord } from '../database';
import { LiveClusterCheck } from './LiveClusterCheck';

const platform = parsePlatform(demoPlatformConfig);

/**
 * A client answering lists from the given objects per kind (a kind mapped to an error fails with it), serving every
 * kind but those of `notServed` (their CRD absent), with every Namespace but those of `missingNamespaces`.
 */
function clientOf(
  lists: Record<string, object[] | KubernetesRequestError>,
  notServed: string[] = [],
  missingNamespaces: string[] = [],
): KubernetesObjectClient {
  const fail = () => Promise.reject(new Error('not used'));
  return {
    apply: fail,
    read: async ref => {
      if (ref.kind !== 'Namespace') return fail();
      if (missingNamespaces.includes(ref.name)) {
        throw new KubernetesRequestError('not found', 'http', 404);
      }
      return {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ref.name },
      };
    },
    delete: fail,
    serves: async (_apiVersion: string, kind: string) =>
      !notServed.includes(kind),
    list: async (options: ListOptions) => {
      if (notServed.includes(options.kind)) {
        throw new KubernetesRequestError('not found', 'http', 404);
      }
      const answer = lists[options.kind] ?? [];
      if (answer instanceof Error) throw answer;
      return { items: answer as KubernetesObject[] };
    },
  };
}

const gpuDeployment = {
  metadata: { name: 'chat', namespace: 'ml' },
  spec: {
    selector: {},
    template: {
      spec: {
        containers: [
          {
            name: 'vllm',
            resources: { limits: { 'nvidia.com/mig-1g.10gb': '1' } },
          },
        ],
      },
    },
  },
};

function hpa(name: string, spec: Record<string, unknown>, owner?: string) {
  return {
    metadata: {
      name,
      namespace: 'ml',
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: 'keda.sh/v1alpha1', kind: owner, name, uid: 'u' },
            ],
          }
        : {}),
    },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'chat' },
      maxReplicas: 3,
      ...spec,
    },
  };
}

function service(
  name: string,
  environment: string,
  pool: string,
): ServiceRecord {
  return {
    id: `id-${name}`,
    name,
    team: 'ml-platform',
    namespace: 'ml',
    environment,
    pool,
    tier: 'dedicated',
    status: 'ready',
    mode: 'apply',
    cluster: 'gpu-eu',
    // A fixed number of replicas: no autoscaling.
    request: {},
  } as ServiceRecord;
}

const check = (
  lists: Parameters<typeof clientOf>[0],
  notServed: string[] = [],
) =>
  new LiveClusterCheck({
    cluster: 'gpu-eu',
    client: clientOf(lists, notServed),
    platform,
  });

describe('LiveClusterCheck', () => {
  it('names the namespace of a team with quota on its pools that the cluster lacks, beside its other findings', async () => {
    const findings = await new LiveClusterCheck({
      cluster: 'gpu-eu',
      client: clientOf({}, [], ['ml-serving']),
      platform,
    }).check([]);
    expect(findings.filter(f => f.id === 'team-namespace-missing')).toEqual([
      expect.objectContaining({
        cluster: 'gpu-eu',
        where: 'Namespace ml-serving',
        severity: 'error',
      }),
    ]);
  });

  it('finds CPU and memory autoscalers of GPU Deployments: HPAs (no metrics means CPU) and ScaledObjects, not the HPAs KEDA owns', async () => {
    const findings = await check({
      Deployment: [
        gpuDeployment,
        { metadata: { name: 'web', namespace: 'ml' }, spec: {} },
      ],
      HorizontalPodAutoscaler: [
        hpa('memory', {
          metrics: [
            {
              type: 'ContainerResource',
              containerResource: { name: 'memory', container: 'vllm' },
            },
          ],
        }),
        hpa('default-cpu', {}),
        hpa('queue', {
          metrics: [{ type: 'Pods', pods: { metric: { name: 'queue' } } }],
        }),
        hpa('keda-hpa-chat', {}, 'ScaledObject'),
        {
          ...hpa('web-cpu', {}),
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' } },
        },
      ],
      ScaledObject: [
        {
          metadata: { name: 'chat', namespace: 'ml' },
          spec: {
            scaleTargetRef: { name: 'chat' },
            triggers: [{ type: 'prometheus' }, { type: 'cpu' }],
          },
        },
      ],
    }).check([]);
    expect(findings.map(f => [f.id, f.where])).toEqual([
      ['cpu-autoscaling-on-gpu', 'HorizontalPodAutoscaler ml/memory'],
      ['cpu-autoscaling-on-gpu', 'HorizontalPodAutoscaler ml/default-cpu'],
      ['cpu-autoscaling-on-gpu', 'ScaledObject ml/chat'],
    ]);
    expect(findings[0].message).toContain('on memory');
  });

  it('skips the kinds whose CRD is absent (404) and turns any other failure into a finding, still running the other checks', async () => {
    const findings = await check(
      {
        Node: new KubernetesRequestError('nodes is forbidden', 'http', 403),
        Deployment: new KubernetesRequestError(
          'no answer within 5000 ms',
          'timeout',
        ),
      },
      ['ScaledObject', 'NodePool'],
    ).check([service('chat', 'production', 'spot-l4')]);
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'cluster-read-failed',
        where: 'Node (list)',
        message: expect.stringContaining('403 nodes is forbidden'),
        fix: expect.stringContaining('get and list on nodes'),
      }),
      expect.objectContaining({
        id: 'cluster-read-failed',
        where: 'Deployment (list)',
        message: expect.stringContaining('no answer within 5000 ms'),
        fix: expect.stringContaining('reachable'),
      }),
      expect.objectContaining({
        id: 'production-on-spot',
        where: 'Deployment ml/chat',
      }),
    ]);
  });

  it('finds a pool running production beside other environments, and production on spot, from the running services', async () => {
    const findings = await check({}).check([
      service('prod-chat', 'production', 'l4-ondemand'),
      service('dev-chat', 'dev', 'l4-ondemand'),
      service('prod-only', 'production', 'h100'),
      service('dev-spot', 'dev', 'spot-l4'),
    ]);
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'pool-shared-dev-production',
        source: 'cluster',
        cluster: 'gpu-eu',
        where: 'ResourceFlavor l4-ondemand',
        message: expect.stringContaining('1 production service beside dev'),
      }),
    ]);
  });

  it('finds NodePools that never consolidate or have no consolidateAfter', async () => {
    const findings = await check({
      NodePool: [
        {
          metadata: { name: 'never' },
          spec: { disruption: { consolidateAfter: 'Never' } },
        },
        { metadata: { name: 'unset' }, spec: {} },
        {
          metadata: { name: 'five' },
          spec: { disruption: { consolidateAfter: '5m' } },
        },
      ],
    }).check([]);
    expect(findings.map(f => f.where)).toEqual([
      'NodePool never',
      'NodePool unset',
    ]);
  });
});
