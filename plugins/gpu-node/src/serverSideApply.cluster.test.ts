import type { KubernetesObject } from '@kubernetes/client-node';
import { describeOnLocalCluster } from './testUtils';
import { DryRunClient, Rejection } from './__testUtils__/dryRunClient';
import { renderedScenarios } from './__testUtils__/renderedScenarios';

/**
 * Generated platforms (beside the fixture platforms) and random services on each, from a fixed fast-check run;
 * `GPU_TEST_SSA_PLATFORMS` and `GPU_TEST_SSA_RUN` change them to explore further.
 */
const GENERATED_PLATFORMS = Number(process.env.GPU_TEST_SSA_PLATFORMS ?? 20);
const RANDOM_SERVICES = 3;
const RUN = Number(process.env.GPU_TEST_SSA_RUN ?? 20261201);
/** Requests in flight at once. */
const CONCURRENCY = 16;
/** Namespaces become `ssa-<namespace>`, simulated nodes `ssa-<pool>-<i>`; the suite labels the namespaces it creates. */
const PREFIX = 'ssa';
const NAMESPACE_LABELS = { 'gpu.backstage.io/test-suite': 'server-side-apply' };

/** Runs `task` over `items`, at most `limit` at once; results in the order of `items`. */
async function mapLimited<T, R>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, worker),
  );
  return results;
}

describeOnLocalCluster(
  'every rendered object passes a server-side apply dry run (strict field validation, CRD schemas and CEL rules, Kueue webhooks)',
  kubeconfig => {
    const scenarios = renderedScenarios({
      generatedPlatforms: GENERATED_PLATFORMS,
      randomServices: RANDOM_SERVICES,
      run: RUN,
      // Namespaces and node names of this suite's own on the shared cluster.
      prefix: PREFIX,
    });
    // Created in beforeAll: without a cluster the suite is only declared (and skipped).
    let client: DryRunClient;
    const namespaces = [
      ...new Set(
        scenarios.flatMap(s =>
          s.objects.flatMap(o =>
            o.metadata?.namespace ? [o.metadata.namespace] : [],
          ),
        ),
      ),
    ].sort();
    const created: string[] = [];

    beforeAll(async () => {
      client = DryRunClient.fromKubeconfig(kubeconfig);
      // Dry runs of namespaced objects need their namespace to exist: create them for real.
      await mapLimited(namespaces, CONCURRENCY, async name => {
        if (await client.ensureNamespace(name, NAMESPACE_LABELS)) {
          created.push(name);
        }
      });
    }, 120_000);

    afterAll(async () => {
      // Only the namespaces this suite created, without waiting for them to go.
      await mapLimited(created, CONCURRENCY, name =>
        client.deleteNamespace(name),
      );
    }, 60_000);

    it('renders every kind, and services of every tier, runtime, autoscaler and environment', () => {
      const objects = scenarios.flatMap(s => s.objects);
      const services = scenarios.flatMap(s => s.services);
      const values = (key: keyof (typeof services)[number]) =>
        [...new Set(services.map(s => s[key]))].sort();
      expect([...new Set(objects.map(o => o.kind))].sort()).toEqual([
        'ClusterQueue',
        'Cohort',
        'ConfigMap',
        'Deployment',
        'HTTPScaledObject',
        'HorizontalPodAutoscaler',
        'LocalQueue',
        'PersistentVolumeClaim',
        'PodDisruptionBudget',
        'ResourceFlavor',
        'ScaledObject',
        'Service',
        'WorkloadPriorityClass',
      ]);
      expect(values('tier')).toEqual([
        'dedicated',
        'mig',
        'mps',
        'time-sliced',
      ]);
      expect(values('runtime')).toEqual(['ollama', 'vllm']);
      expect(values('autoscaler')).toEqual(['hpa', 'keda', 'none']);
      expect(values('environment')).toEqual(
        expect.arrayContaining(['dev', 'staging', 'production', 'qa', 'prod']),
      );
    });

    // The checks run: objects broken in one way each, rejected by the server for that reason.
    const demo = scenarios[0].objects;
    const pick = (kind: string, name?: string): any =>
      JSON.parse(
        JSON.stringify(
          demo.find(
            o =>
              o.kind === kind &&
              (name === undefined || o.metadata?.name === name),
          ),
        ),
      );
    const broken: Array<[string, () => KubernetesObject, RegExp]> = [
      [
        'a Deployment with an unknown field (strict field validation)',
        () => {
          const deployment = pick('Deployment');
          deployment.spec.template.spec.containers[0].gpus = 1;
          return deployment;
        },
        /containers\[name="vllm"\]\.gpus: field not declared in schema/,
      ],
      [
        'a v1beta2 ClusterQueue with the v1beta1 cohort field (CRD schema, strict)',
        () => {
          const queue = pick('ClusterQueue');
          queue.spec.cohort = queue.spec.cohortName;
          delete queue.spec.cohortName;
          return queue;
        },
        /\.spec\.cohort: field not declared in schema/,
      ],
      [
        'a ClusterQueue flavor that lacks a covered resource (CRD CEL rule)',
        () => {
          const queue = pick('ClusterQueue', 'gpu-ml-platform');
          queue.spec.resourceGroups[1].flavors[0].resources.pop();
          return queue;
        },
        /flavors must have the same number of resources as the coveredResources/,
      ],
      [
        "an HTTPScaledObject with a ScaledObject's cooldownPeriod (KEDA HTTP add-on CRD schema, strict)",
        () => {
          const scaled = pick('HTTPScaledObject');
          scaled.spec.cooldownPeriod = scaled.spec.scaledownPeriod;
          delete scaled.spec.scaledownPeriod;
          return scaled;
        },
        /\.spec\.cooldownPeriod: field not declared in schema/,
      ],
      [
        'a ResourceFlavor listing a taint twice (Kueue webhook)',
        () => {
          const flavor = pick('ResourceFlavor', 'l4-ondemand');
          flavor.spec.nodeTaints.push({ ...flavor.spec.nodeTaints[0] });
          return flavor;
        },
        /vresourceflavor\.kb\.io.*taints must be unique by key and effect pair/,
      ],
      [
        'a Deployment whose queue name is not a name (Kueue webhook)',
        () => {
          const deployment = pick('Deployment');
          deployment.metadata.labels['kueue.x-k8s.io/queue-name'] =
            'Not_A_Queue';
          return deployment;
        },
        /vdeployment\.kb\.io/,
      ],
      [
        'a Deployment with a malformed quantity (core validation)',
        () => {
          const deployment = pick('Deployment');
          deployment.spec.template.spec.containers[0].resources.requests.cpu =
            'four';
          return deployment;
        },
        /quantities must match the regular expression/,
      ],
    ];

    it.each(broken.map(([name, make, expected]) => [name, make, expected]))(
      'rejects %s',
      async (_, make, expected) => {
        const rejection = await client.dryRunApply(make());
        expect(rejection?.message).toMatch(expected);
      },
    );

    it.each(scenarios.map(s => [s.name, s] as const))(
      '%s',
      async (_, scenario) => {
        const rejections = (
          await mapLimited(
            [...scenario.objects, ...scenario.nodes],
            CONCURRENCY,
            object => client.dryRunApply(object),
          )
        ).filter((r): r is Rejection => r !== undefined);
        // Every rejection at once: the object and what the API server said.
        expect(
          rejections.map(r => `${r.object}: HTTP ${r.status}: ${r.message}`),
        ).toEqual([]);
      },
      60_000,
    );
  },
);
