import type { KubernetesObject } from '@kubernetes/client-node';
import {
  demoPlatformConfig,
  parsePlatform,
  parsePlatformOperations,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { FIELD_MANAGER } from './labels';
import { renderPlatformManifests } from './renderPlatformManifests';
import { describeObject, describeOnLocalCluster } from './testUtils';
import { DryRunClient } from './__testUtils__/dryRunClient';
import { RawKubernetesClient } from './testUtils/RawKubernetesClient';

/** Namespaces of this suite's own on the shared cluster (`pobj-<namespace>`); NodePools are named `pobj-<pool>`. */
const PREFIX = 'pobj';
const NAMESPACE_LABELS = { 'gpu.backstage.io/test-suite': 'platform-objects' };

/** The demo platform with this suite's names, and its NodePools and alert rules, cluster-wide and per team. */
function renderedOperations(): KubernetesObject[] {
  const raw = {
    ...demoPlatformConfig,
    pools: demoPlatformConfig.pools.map(pool => ({
      ...pool,
      name: `${PREFIX}-${pool.name}`,
      ...(pool.name === 'l4-ondemand'
        ? { karpenter: { instanceFamilies: ['g6', 'g6e'] } }
        : {}),
      ...(pool.name === 'h100' ? { karpenter: { managed: false } } : {}),
    })),
    teams: demoPlatformConfig.teams.map(team => ({
      ...team,
      namespaces: team.namespaces.map(ns => `${PREFIX}-${ns}`),
      gpuQuota: Object.fromEntries(
        Object.entries(team.gpuQuota).map(([pool, q]) => [
          `${PREFIX}-${pool}`,
          q,
        ]),
      ),
    })),
  };
  const objectsOf = (alerts: Record<string, unknown>) => {
    const config = { ...raw, alerts };
    const platform = parsePlatform(config);
    return renderPlatformManifests(platform, {
      operations: parsePlatformOperations(config, platform),
    }).filter(o => o.kind === 'NodePool' || o.kind === 'PrometheusRule');
  };
  const cluster = objectsOf({
    namespace: `${PREFIX}-monitoring`,
    labels: { release: 'kube-prometheus-stack' },
  });
  const team = objectsOf({ scope: 'team' }).filter(
    o => o.kind === 'PrometheusRule',
  );
  return [...cluster, ...team];
}

describeOnLocalCluster(
  'NodePools and PrometheusRules are stored by an API server with the Karpenter and Prometheus operator CRDs',
  kubeconfig => {
    const objects = renderedOperations();
    const namespaces = [
      ...new Set(objects.flatMap(o => o.metadata?.namespace ?? [])),
    ].sort();
    let raw: RawKubernetesClient;
    let namespaceClient: DryRunClient;

    const path = (object: KubernetesObject) => raw.objectPath(object);

    beforeAll(async () => {
      raw = RawKubernetesClient.fromKubeconfig(kubeconfig);
      namespaceClient = DryRunClient.fromKubeconfig(kubeconfig);
      for (const name of namespaces) {
        await namespaceClient.ensureNamespace(name, NAMESPACE_LABELS);
      }
    }, 120_000);

    afterAll(async () => {
      for (const object of objects.filter(o => o.kind === 'NodePool')) {
        await raw.request('DELETE', await path(object));
      }
      for (const name of namespaces) {
        await namespaceClient.deleteNamespace(name);
      }
    }, 60_000);

    it('renders five NodePools (h100 is not Karpenter-managed), one cluster-wide rule and one per team', () => {
      expect(objects.map(describeObject)).toEqual([
        'NodePool pobj-a100-mig',
        'NodePool pobj-l4-mps',
        'NodePool pobj-l4-ondemand',
        'NodePool pobj-spot-l4',
        'NodePool pobj-t4-timeslice',
        'PrometheusRule pobj-monitoring/gpu-alerts',
        'PrometheusRule pobj-ml-platform/gpu-alerts-ml-platform',
        'PrometheusRule pobj-search/gpu-alerts-search',
      ]);
    });

    it('applies each (server-side, strict field validation, no dry run) and reads back what was rendered', async () => {
      for (const object of objects) {
        const applied = await raw.apply(object, {
          fieldManager: FIELD_MANAGER,
          strict: true,
        });
        // 201 the first time, 200 when an earlier run left it; anything else with the server's message.
        expect(
          `${describeObject(object)}: ${
            applied.status < 300 ? 'stored' : JSON.stringify(applied.body)
          }`,
        ).toBe(`${describeObject(object)}: stored`);
        const read = await raw.request('GET', await path(object));
        expect(read.status).toBe(200);
        // The server adds its defaults (a NodePool's disruption budgets, expireAfter) and metadata; the rest is as rendered.
        expect(read.body).toMatchObject(object);
        expect(read.body.metadata.managedFields[0].manager).toBe(FIELD_MANAGER);
      }
    }, 60_000);

    it("enforces the CRDs' own rules: a NodePool setting a label Karpenter reserves is refused", async () => {
      const nodePool = structuredClone(objects[0]) as any;
      nodePool.metadata.name = `${PREFIX}-refused`;
      nodePool.spec.template.metadata.labels['karpenter.sh/nodepool'] = 'x';
      const response = await raw.apply(nodePool, {
        fieldManager: FIELD_MANAGER,
        strict: true,
        dryRun: true,
      });
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body)).toMatch(
        /label \\"karpenter.sh\/nodepool\\" is restricted/,
      );
    });
  },
);
