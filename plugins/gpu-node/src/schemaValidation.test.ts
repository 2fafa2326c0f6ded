import type { KubernetesObject } from '@kubernetes/client-node';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import {
  demoPlatformConfig,
  parsePlatform,
  parsePlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { renderPlatformManifests } from './renderPlatformManifests';
import { renderServiceManifests } from './renderServiceManifests';
import { renderTeamManifests } from './renderTeamManifests';
import { toYaml } from './toYaml';
import {
  demoPlatform,
  placementOf,
  seed000Platform,
  servingAndOcrBatchPlatform,
  summariserRequest,
} from './__testUtils__/platforms';
import { renderableRequest } from './__testUtils__/arbitraries';
import { renderedScenarios } from './__testUtils__/renderedScenarios';
import {
  renderPlatformWithSpread,
  SPREAD_WAKE_TRIGGER,
} from './__testUtils__/serviceSpread';
import { validateEach } from './__testUtils__/validateManifests';

const servingAndOcrBatch = servingAndOcrBatchPlatform();
const validSets: Record<string, KubernetesObject[]> = {
  'the demo platform, its teams and a spread of services (Kueue v1beta2)':
    renderPlatformWithSpread(demoPlatform()),
  'the demo platform, its teams and a spread of services (Kueue v1beta1)':
    renderPlatformWithSpread(demoPlatform('kueue.x-k8s.io/v1beta1')),
  '40 random valid requests on the demo platform': fc
    .sample(renderableRequest(demoPlatform()), { numRuns: 80, seed: 4 })
    .filter(candidate => candidate !== undefined)
    .slice(0, 40)
    .flatMap(({ request, fit }, i) =>
      renderServiceManifests(
        demoPlatform(),
        { ...request, name: `${request.name.slice(0, 35)}-${i}` },
        placementOf(fit.slice),
        {
          serviceId: `random-${i}`,
          wakeTrigger: SPREAD_WAKE_TRIGGER,
        },
      ),
    ),
  'the scenario platforms and the report summariser': [
    ...renderPlatformManifests(seed000Platform()),
    ...renderPlatformManifests(servingAndOcrBatch),
    ...renderTeamManifests(servingAndOcrBatch, 'batch'),
    ...renderServiceManifests(
      servingAndOcrBatch,
      summariserRequest,
      { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
      { serviceId: 'summariser-1' },
    ),
    // a production service with every render option of gpu.serviceDefaults
    ...renderServiceManifests(
      servingAndOcrBatch,
      { ...summariserRequest, replicas: 2 },
      { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
      {
        serviceId: 'summariser-2',
        huggingFaceTokenSecret: { name: 'hf-token', key: 'token' },
        images: { registry: 'mirror.example.com/hub' },
        modelCache: { storageClassName: 'gp3' },
        runtimeClassName: 'nvidia',
        podSecurityContext: { seccompProfile: { type: 'RuntimeDefault' } },
        containerSecurityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        },
        labels: { 'example.com/cost-centre': 'ml-42' },
        annotations: { 'example.com/owner': 'ML platform' },
        zeroDowntimeRollouts: true,
        surge: { fits: false, reason: 'no quota for a surge pod' },
        podDisruptionBudget: { maxUnavailable: 1 },
        podMonitor: { enabled: true, labels: { release: 'kube-prometheus' } },
      },
    ),
  ],
  'the demo platform with its Karpenter NodePools and alert rules': (() => {
    const platform = parsePlatform(demoPlatformConfig);
    return renderPlatformManifests(platform, {
      operations: parsePlatformOperations(demoPlatformConfig, platform),
    });
  })(),
  // The same objects serverSideApply.cluster.test.ts dry-runs on a real API server.
  'the fixture and generated platforms of the server-side apply suite':
    renderedScenarios().flatMap(scenario => scenario.objects),
};

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value));
const demo = validSets[Object.keys(validSets)[0]];
const pick = (kind: string, name?: string) =>
  clone(
    demo.find(
      o => o.kind === kind && (name === undefined || o.metadata?.name === name),
    )!,
  ) as any;

/** Valid objects broken in one way each; validation must report every one. */
const broken: Array<[string, () => KubernetesObject, RegExp]> = [
  [
    'a v1beta2 ClusterQueue with the v1beta1 cohort field',
    () => {
      const queue = pick('ClusterQueue');
      queue.spec.cohort = queue.spec.cohortName;
      delete queue.spec.cohortName;
      return queue;
    },
    /additionalProperty":"cohort"/,
  ],
  [
    'a ClusterQueue flavor that lacks a covered resource',
    () => {
      const queue = pick('ClusterQueue', 'gpu-ml-platform');
      queue.spec.resourceGroups[1].flavors[0].resources.pop();
      return queue;
    },
    /same number of resources/,
  ],
  [
    'a ClusterQueue flavor listing resources out of order',
    () => {
      const queue = pick('ClusterQueue', 'gpu-ml-platform');
      queue.spec.resourceGroups.at(-1)!.flavors[0].resources.reverse();
      return queue;
    },
    /must match coveredResources/,
  ],
  [
    'a ClusterQueue whose quota is not a quantity',
    () => {
      const queue = pick('ClusterQueue');
      queue.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota =
        'lots';
      return queue;
    },
    /nominalQuota must match pattern/,
  ],
  [
    'a ResourceFlavor with 9 node labels',
    () => {
      const flavor = pick('ResourceFlavor');
      for (let i = 0; i < 9; i++)
        flavor.spec.nodeLabels[`example.com/l${i}`] = 'x';
      return flavor;
    },
    /nodeLabels must NOT have more than 8/,
  ],
  [
    'a ResourceFlavor listing a taint twice (Kueue webhook)',
    () => {
      const flavor = pick('ResourceFlavor', 'spot-l4');
      flavor.spec.nodeTaints.push({
        ...flavor.spec.nodeTaints[1],
        value: 'false',
      });
      return flavor;
    },
    /nodeTaints\[2\] gpu\.example\.com\/spot:NoSchedule: taints must be unique by key and effect pair/,
  ],
  [
    'a WorkloadPriorityClass without a value',
    () => {
      const priority = pick('WorkloadPriorityClass');
      delete priority.value;
      return priority;
    },
    /required property 'value'/,
  ],
  [
    'a LocalQueue pointing at an invalid ClusterQueue name',
    () => {
      const queue = pick('LocalQueue');
      queue.spec.clusterQueue = 'Not_A_Name';
      return queue;
    },
    /clusterQueue must match pattern/,
  ],
  [
    'a Deployment with a malformed quantity',
    () => {
      const deployment = pick('Deployment');
      deployment.spec.template.spec.containers[0].resources.requests.cpu =
        'four';
      return deployment;
    },
    /cpu must match format "quantity"/,
  ],
  [
    'a Deployment with an unknown field',
    () => {
      const deployment = pick('Deployment');
      deployment.spec.template.spec.containers[0].gpus = 1;
      return deployment;
    },
    /unknown field spec.template.spec.containers\[0\].gpus/,
  ],
  [
    'a ScaledObject whose trigger metadata is not strings',
    () => {
      const scaled = pick('ScaledObject');
      scaled.spec.triggers[0].metadata.threshold = 5;
      return scaled;
    },
    /threshold must be string/,
  ],
  [
    'an HPA without maxReplicas',
    () => {
      const hpa = pick('HorizontalPodAutoscaler');
      delete hpa.spec.maxReplicas;
      return hpa;
    },
    /required property maxReplicas/,
  ],
  [
    'a Service whose name is longer than 63 characters',
    () => {
      const service = pick('Service');
      service.metadata.name = 'x'.repeat(64);
      return service;
    },
    /not a DNS-1123 label/,
  ],
  [
    'an object with an invalid label value',
    () => {
      const claim = pick('PersistentVolumeClaim');
      claim.metadata.labels['gpu.backstage.io/team'] = 'has spaces';
      return claim;
    },
    /value has spaces is invalid/,
  ],
  [
    'a kind no schema covers',
    () => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
    }),
    /no kubernetes-models schema/,
  ],
  [
    'a NodePool with a field Karpenter does not know',
    () => {
      const pool = clone(
        validSets[
          'the demo platform with its Karpenter NodePools and alert rules'
        ].find(o => o.kind === 'NodePool')!,
      ) as any;
      pool.spec.disruption.consolidateAfterIdle = '5m';
      return pool;
    },
    /NodePool \/a100-mig: \/spec\/disruption must NOT have additional properties .*consolidateAfterIdle/,
  ],
  [
    'a PodMonitor whose endpoint names a field the Prometheus operator does not know',
    () => {
      const monitor = clone(
        validSets['the scenario platforms and the report summariser'].find(
          o => o.kind === 'PodMonitor',
        )!,
      ) as any;
      monitor.spec.podMetricsEndpoints[0].metricsPath = '/metrics';
      return monitor;
    },
    /PodMonitor serving\/summariser: \/spec\/podMetricsEndpoints\/0 must NOT have additional properties .*metricsPath/,
  ],
  [
    "an HTTPScaledObject with a ScaledObject's cooldownPeriod",
    () => {
      const scaled = clone(
        validSets[
          'the fixture and generated platforms of the server-side apply suite'
        ].find(o => o.kind === 'HTTPScaledObject')!,
      ) as any;
      scaled.spec.cooldownPeriod = scaled.spec.scaledownPeriod;
      delete scaled.spec.scaledownPeriod;
      return scaled;
    },
    /HTTPScaledObject ml-platform\/big-http: \/spec must NOT have additional properties .*cooldownPeriod/,
  ],
];

// One validation run (one child process) for everything below.
const validNames = Object.keys(validSets);
const brokenObjects = broken.map(([, make]) => make());
const problems = validateEach([
  ...Object.values(validSets).flat(),
  ...brokenObjects,
]);
const validProblems: Record<string, string[]> = {};
let offset = 0;
for (const name of validNames) {
  validProblems[name] = problems
    .slice(offset, offset + validSets[name].length)
    .flat();
  offset += validSets[name].length;
}
const brokenProblems = problems.slice(offset);

describe('every rendered object is valid against the Kubernetes and Kueue v0.19 schemas', () => {
  it('covers every kind the renderer produces', () => {
    expect([...new Set(demo.map(o => o.kind))].sort()).toEqual([
      'ClusterQueue',
      'Cohort',
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'LocalQueue',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'ResourceFlavor',
      'ScaledObject',
      'Service',
      'WorkloadPriorityClass',
    ]);
  });

  it.each(validNames)('%s', name => {
    expect(validSets[name].length).toBeGreaterThan(20);
    expect(validProblems[name]).toEqual([]);
    // GitOps gets the same objects back from the YAML
    expect(
      parseAllDocuments(toYaml(validSets[name])).map(d => d.toJS()),
    ).toEqual(validSets[name]);
  });
});

describe('validateManifests', () => {
  it.each(broken.map(([name], i) => [name, i] as const))('fails %s', (_, i) => {
    expect(brokenProblems[i].join('\n')).toMatch(broken[i][2]);
  });
});
