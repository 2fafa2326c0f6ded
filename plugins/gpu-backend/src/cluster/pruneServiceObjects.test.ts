import { registerMswTestHooks } from '@backstage/backend-test-utils';
import {
  demoPlatformConfig,
  parsePlatform,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import {
  renderServiceManifests,
  renderTeamManifests,
} from '@gpu-platform/backstage-plugin-gpu-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { setupServer } from 'msw/node';
import { fakeKubernetesApi } from './__testUtils__/fakeKubernetesApi';
import { KubernetesApplyError } from './errors';
import { KubernetesApplier } from './KubernetesApplier';
import { KubernetesClientFactory } from './KubernetesClientFactory';
import { refOf } from './objectRef';
import {
  applyAndPrune,
  needsPrune,
  ownersOfRendered,
  pruneServiceObjects,
  replacements,
  SERVICE_OBJECT_KINDS,
  staleServiceObjects,
  teardownKinds,
} from './pruneServiceObjects';

const BASE = 'https://prune.test:6443';
const SERVICE_ID = '3f0b8c1e-7a51-4a43-9d8e-1f0e3a7b9c21';
const OTHER_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const NAMESPACE = 'ml-platform';
const SELECTOR = `${encodeURIComponent(
  `gpu.backstage.io/service-id=${SERVICE_ID},app.kubernetes.io/managed-by=backstage-gpu`,
)}&limit=500`;
const SSA = '?fieldManager=backstage-gpu&force=true';

const platform = parsePlatform({
  ...demoPlatformConfig,
  pools: [
    ...demoPlatformConfig.pools,
    {
      name: 'l4-dra',
      gpuModel: 'L4',
      gpusPerNode: 1,
      maxNodes: 2,
      pricePerNodeHour: '0.8048',
      allocation: 'dra',
    },
  ],
});

/** The summariser in production (a PodDisruptionBudget), with what `change` sets, rendered as the backend does. */
function rendered(
  change: Partial<ServiceRequest> = {},
  options: Partial<Parameters<typeof renderServiceManifests>[3]> = {},
  pool = 'l4-ondemand',
): KubernetesObject[] {
  const request = {
    ...summariserOnDedicatedL4,
    namespace: NAMESPACE,
    pool,
    ...change,
  };
  return [
    ...renderTeamManifests(platform, request.team).filter(
      o => o.metadata?.namespace === NAMESPACE,
    ),
    ...renderServiceManifests(
      platform,
      request,
      { tier: 'dedicated', pool, gpusPerReplica: 1 },
      { serviceId: SERVICE_ID, ...options },
    ),
  ];
}

const HPA = { minReplicas: 1, maxReplicas: 3, targetQueueDepth: 4 };

/** `gpu.alerts` enabled: a latency budget renders its PrometheusRule. */
const ALERTS = { labels: { release: 'kube-prometheus-stack' } };

function kindsOf(objects: KubernetesObject[]): string[] {
  return objects.map(o => o.kind!);
}

/** An object as a list answers it, with the given ownership labels. */
function found(
  kind: string,
  name: string,
  labels: Record<string, string> | undefined,
  apiVersion = 'policy/v1',
): KubernetesObject {
  return {
    apiVersion,
    kind,
    metadata: { name, namespace: NAMESPACE, ...(labels && { labels }) },
  };
}

const OURS = {
  'app.kubernetes.io/managed-by': 'backstage-gpu',
  'gpu.backstage.io/service-id': SERVICE_ID,
};

describe('SERVICE_OBJECT_KINDS', () => {
  it('holds every kind the renderer gives a service, at the version it renders, and nothing of the team', () => {
    const variants = [
      rendered(),
      rendered({ environment: 'dev' }),
      rendered({}, {}, 'l4-dra'),
      rendered({ autoscaling: { ...HPA, engine: 'hpa' } }),
      rendered({ autoscaling: { ...HPA, engine: 'keda' } }),
      rendered(
        { autoscaling: { ...HPA, minReplicas: 0, engine: 'keda' } },
        {
          wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 300 },
        },
      ),
      rendered({}, { podMonitor: { enabled: true, labels: {} } }),
      rendered({ latencyBudget: { p95Seconds: 2 } }, { alerts: ALERTS }),
    ];
    const serviceKinds = new Map<string, string>();
    for (const object of variants.flat()) {
      if (object.metadata?.labels?.['gpu.backstage.io/service-id']) {
        serviceKinds.set(object.kind!, object.apiVersion!);
      }
    }
    expect(
      [...serviceKinds]
        .map(([kind, apiVersion]) => ({ apiVersion, kind }))
        .sort((a, b) => a.kind.localeCompare(b.kind)),
    ).toEqual(
      [...SERVICE_OBJECT_KINDS].sort((a, b) => a.kind.localeCompare(b.kind)),
    );
    // The team's LocalQueue is among the manifests of each of its services, without the service's id.
    expect(kindsOf(variants[0])).toContain('LocalQueue');
    expect(SERVICE_OBJECT_KINDS.map(k => k.kind)).not.toContain('LocalQueue');
  });
});

describe('needsPrune', () => {
  it.each([
    [{ generation: 1 }, false],
    [{ generation: 1, observedGeneration: 1 }, false],
    [{ generation: 2, observedGeneration: 1 }, true],
    [{ generation: 3, observedGeneration: 1 }, true],
    // Never applied successfully, but an earlier generation's apply may have got part of the way.
    [{ generation: 2 }, true],
    // A drift repair applies the generation already applied.
    [{ generation: 2, observedGeneration: 2 }, false],
  ])('%j: %s', (service, expected) => {
    expect(needsPrune(service)).toBe(expected);
  });
});

describe('staleServiceObjects', () => {
  it('chooses the service-owned objects of allowed kinds the manifests no longer render', () => {
    const before = rendered({ autoscaling: { ...HPA, engine: 'hpa' } });
    const after = rendered({ environment: 'staging' });
    expect(kindsOf(before)).toEqual(
      expect.arrayContaining([
        'PodDisruptionBudget',
        'HorizontalPodAutoscaler',
      ]),
    );
    expect(kindsOf(after)).not.toContain('PodDisruptionBudget');

    expect(staleServiceObjects(SERVICE_ID, after, before)).toEqual([
      // Up to several replicas shared a ReadWriteMany cache; one replica has a ReadWriteOnce claim of its own.
      refOf(before.find(o => o.kind === 'PersistentVolumeClaim')!),
      refOf(before.find(o => o.kind === 'PodDisruptionBudget')!),
      refOf(before.find(o => o.kind === 'HorizontalPodAutoscaler')!),
    ]);
    // Nothing when everything found is rendered.
    expect(staleServiceObjects(SERVICE_ID, before, before)).toEqual([]);
  });

  it('chooses the PrometheusRule of a latency budget the service no longer states, or when alerts are turned off', () => {
    const withBudget = rendered(
      { latencyBudget: { p95Seconds: 2 } },
      { alerts: ALERTS },
    );
    const rule = withBudget.find(o => o.kind === 'PrometheusRule')!;
    expect(rule.metadata).toMatchObject({
      name: 'summariser-latency',
      namespace: NAMESPACE,
      labels: OURS,
    });
    expect(
      staleServiceObjects(SERVICE_ID, rendered({}, { alerts: ALERTS }), [rule]),
    ).toEqual([refOf(rule)]);
    expect(
      staleServiceObjects(
        SERVICE_ID,
        rendered({ latencyBudget: { p95Seconds: 2 } }),
        [rule],
      ),
    ).toEqual([refOf(rule)]);
    // A changed budget renders the same rule: applied over, not pruned.
    expect(
      staleServiceObjects(
        SERVICE_ID,
        rendered({ latencyBudget: { p95Seconds: 3 } }, { alerts: ALERTS }),
        [rule],
      ),
    ).toEqual([]);
  });

  it('never chooses the team LocalQueue, another service, an unlabelled or foreign-managed object, or one being deleted', () => {
    const manifests = rendered();
    const localQueue = manifests.find(o => o.kind === 'LocalQueue')!;
    const candidates: KubernetesObject[] = [
      // A LocalQueue labelled as the service's own is still not a kind the product renders for a service.
      {
        ...localQueue,
        metadata: {
          ...localQueue.metadata,
          name: 'not-ours-to-prune',
          labels: { ...localQueue.metadata!.labels, ...OURS },
        },
      },
      found('PodDisruptionBudget', 'other-service', {
        ...OURS,
        'gpu.backstage.io/service-id': OTHER_ID,
      }),
      found('PodDisruptionBudget', 'unlabelled', undefined),
      found('PodDisruptionBudget', 'by-hand', {
        ...OURS,
        'app.kubernetes.io/managed-by': 'kubectl',
      }),
      {
        ...found('PodDisruptionBudget', 'terminating', OURS),
        metadata: {
          ...found('PodDisruptionBudget', 'terminating', OURS).metadata,
          deletionTimestamp: new Date('2026-12-02T16:00:00Z'),
        },
      },
      found('ConfigMap', 'not-rendered-for-services', OURS, 'v1'),
      // KEDA's HPA for a ScaledObject carries the ScaledObject's labels but is KEDA's.
      {
        ...found('HorizontalPodAutoscaler', 'keda-hpa-summariser', OURS),
        metadata: {
          ...found('HorizontalPodAutoscaler', 'keda-hpa-summariser', OURS)
            .metadata,
          ownerReferences: [
            {
              apiVersion: 'keda.sh/v1alpha1',
              kind: 'ScaledObject',
              name: 'summariser',
              uid: 's-1',
              controller: true,
            },
          ],
        },
      },
    ];
    expect(staleServiceObjects(SERVICE_ID, manifests, candidates)).toEqual([]);
    expect(
      staleServiceObjects('', manifests, [
        found('PodDisruptionBudget', 'x', {}),
      ]),
    ).toEqual([]);
  });

  it('matches a rendered object whatever version it is read at', () => {
    const manifests = rendered({ autoscaling: { ...HPA, engine: 'hpa' } });
    const hpa = manifests.find(o => o.kind === 'HorizontalPodAutoscaler')!;
    expect(
      staleServiceObjects(SERVICE_ID, manifests, [
        { ...hpa, apiVersion: 'autoscaling/v1' },
      ]),
    ).toEqual([]);
    expect(
      staleServiceObjects(SERVICE_ID, rendered(), [
        { ...hpa, apiVersion: 'autoscaling/v1' },
      ]),
    ).toEqual([{ ...refOf(hpa), apiVersion: 'autoscaling/v1' }]);
  });
});

describe('ownersOfRendered', () => {
  const object = (
    kind: string,
    name: string,
    uid: string,
    ownerUids: string[] = [],
  ): KubernetesObject => ({
    apiVersion:
      kind === 'HTTPScaledObject'
        ? 'http.keda.sh/v1alpha1'
        : 'keda.sh/v1alpha1',
    kind,
    metadata: {
      name,
      namespace: 'ml-serving',
      uid,
      ownerReferences: ownerUids.map(owner => ({
        apiVersion: 'http.keda.sh/v1alpha1',
        kind: 'HTTPScaledObject',
        name,
        uid: owner,
      })),
    },
  });

  it('names the objects a rendered object depends on, so their prune keeps it', () => {
    const httpScaledObject = object('HTTPScaledObject', 'summariser', 'h-1');
    // KEDA's HTTP add-on made this ScaledObject under its HTTPScaledObject; the wake query's ScaledObject took it over.
    const scaledObject = object('ScaledObject', 'summariser', 's-1', ['h-1']);
    const unrelated = object('HTTPScaledObject', 'other', 'h-2');
    expect([
      ...ownersOfRendered(
        [scaledObject],
        [httpScaledObject, scaledObject, unrelated],
      ),
    ]).toEqual(['http.keda.sh/HTTPScaledObject/ml-serving/summariser']);
    // Nothing rendered depends on them: their dependents go with them.
    expect(
      ownersOfRendered([], [httpScaledObject, scaledObject, unrelated]).size,
    ).toBe(0);
  });
});

describe('a replaced HTTPScaledObject', () => {
  const httpScaledObject: KubernetesObject = {
    apiVersion: 'http.keda.sh/v1alpha1',
    kind: 'HTTPScaledObject',
    metadata: {
      name: 'summariser',
      namespace: NAMESPACE,
      uid: 'h-1',
      labels: OURS,
    },
  };
  /** The wake query's ScaledObject of the HTTPScaledObject's name, as rendered. */
  const wakeQuery: KubernetesObject = {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: 'summariser', namespace: NAMESPACE, labels: OURS },
  };
  const hpa: KubernetesObject = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'summariser', namespace: NAMESPACE, labels: OURS },
  };

  it('is replaced only by a ScaledObject of its name, which its add-on makes; nothing else replaces anything', () => {
    const stale = [refOf(httpScaledObject)];
    expect(replacements([wakeQuery], stale)).toEqual([
      { replaced: stale[0], by: wakeQuery },
    ]);
    // The service no longer scales through KEDA, or its ScaledObject has another name or namespace.
    expect(replacements([hpa], stale)).toEqual([]);
    expect(
      replacements(
        [{ ...wakeQuery, metadata: { ...wakeQuery.metadata, name: 'other' } }],
        stale,
      ),
    ).toEqual([]);
    expect(
      replacements(
        [
          {
            ...wakeQuery,
            metadata: { ...wakeQuery.metadata, namespace: 'elsewhere' },
          },
        ],
        stale,
      ),
    ).toEqual([]);
    // A ScaledObject replaced by an HPA of its name: KEDA's HPA of it goes with it.
    expect(replacements([hpa], [refOf(wakeQuery)])).toEqual([]);
  });

  /**
   * A cluster serving every kind where the HTTPScaledObject is listed before its add-on took up the ScaledObject of
   * its name (no ownerReference yet), and is gone after `readsUntilGone` reads.
   */
  function cluster(readsUntilGone: number) {
    const calls: string[] = [];
    let reads = 0;
    const applier = {
      cluster: 'gpu-eu',
      serves: async () => true,
      list: async ({ kind }: { kind: string }) => {
        if (kind === 'HTTPScaledObject') return [httpScaledObject];
        if (kind !== 'ScaledObject') return [];
        return [
          { ...wakeQuery, metadata: { ...wakeQuery.metadata, uid: 's-1' } },
        ];
      },
      deleteObjects: async (
        refs: ReturnType<typeof refOf>[],
        options?: { orphanDependents?: boolean },
      ) => {
        calls.push(
          `delete ${refs.map(r => r.kind).join()} orphan=${Boolean(
            options?.orphanDependents,
          )}`,
        );
        return refs.map(ref => ({ ref, outcome: 'deleted' as const }));
      },
      read: async (ref: ReturnType<typeof refOf>) => {
        calls.push(`read ${ref.kind}`);
        reads += 1;
        return reads > readsUntilGone ? undefined : httpScaledObject;
      },
      apply: async (objects: KubernetesObject[]) => {
        calls.push(`apply ${kindsOf(objects).join()}`);
        return [];
      },
    };
    return { applier, calls };
  }

  it('is deleted keeping its dependents, and what replaces it is applied again once it is gone', async () => {
    const { applier, calls } = cluster(2);
    const sleeps: number[] = [];
    expect(
      await pruneServiceObjects(
        applier,
        { id: SERVICE_ID, namespace: NAMESPACE, manifests: [wakeQuery] },
        { intervalMs: 100, sleep: async ms => void sleeps.push(ms) },
      ),
    ).toEqual([refOf(httpScaledObject)]);
    expect(calls).toEqual([
      'delete HTTPScaledObject orphan=true',
      'read HTTPScaledObject',
      'read HTTPScaledObject',
      'read HTTPScaledObject',
      'apply ScaledObject',
    ]);
    expect(sleeps).toEqual([100, 100]);
  });

  it("still there after the wait (its finalizer's controller not running): the prune fails naming it, nothing applied again", async () => {
    const { applier, calls } = cluster(Infinity);
    await expect(
      pruneServiceObjects(
        applier,
        { id: SERVICE_ID, namespace: NAMESPACE, manifests: [wakeQuery] },
        { timeoutMs: 0, sleep: async () => {} },
      ),
    ).rejects.toThrow(
      `HTTPScaledObject ${NAMESPACE}/summariser on cluster 'gpu-eu' failed after 1 attempt: still there 0 s after its prune`,
    );
    expect(calls.filter(c => c.startsWith('apply'))).toEqual([]);
  });
});

describe('teardownKinds', () => {
  it('keeps the manifest kinds first, then every served kind of SERVICE_OBJECT_KINDS in the namespace, once by group and kind', async () => {
    const asked: string[] = [];
    const applier = {
      serves: async (apiVersion: string, kind: string) => {
        asked.push(`${apiVersion}/${kind}`);
        return !apiVersion.includes('keda.sh');
      },
    };
    const kinds = await teardownKinds(applier, { namespace: NAMESPACE }, [
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE },
      { apiVersion: 'v1', kind: 'Service', namespace: NAMESPACE },
      // Another version of a group and kind listed already: not listed twice.
      {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        namespace: NAMESPACE,
      },
    ]);
    expect(kinds).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: NAMESPACE },
      { apiVersion: 'v1', kind: 'Service', namespace: NAMESPACE },
      {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        namespace: NAMESPACE,
      },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: NAMESPACE },
      {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaimTemplate',
        namespace: NAMESPACE,
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: NAMESPACE,
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PodMonitor',
        namespace: NAMESPACE,
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        namespace: NAMESPACE,
      },
    ]);
    // Core kinds are served by every cluster: discovery is asked only for the others.
    expect(asked).not.toContain('v1/Service');
    expect(asked).toContain('keda.sh/v1alpha1/ScaledObject');
  });

  it('throws what discovery threw (the teardown then retries or fails)', async () => {
    const applier = {
      serves: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    await expect(
      teardownKinds(applier, { namespace: NAMESPACE }, []),
    ).rejects.toThrow('ECONNREFUSED');
  });
});

describe('pruneServiceObjects on an API server', () => {
  const server = setupServer();
  registerMswTestHooks(server);

  /**
   * The fake API server: core, apps, policy and the Prometheus operator's PrometheusRule served; KEDA, its PodMonitor,
   * DRA and autoscaling/v2 not.
   */
  function setup() {
    const api = fakeKubernetesApi(BASE);
    server.use(...api.handlers);
    const applier = new KubernetesApplier({
      cluster: 'gpu-eu',
      client: new KubernetesClientFactory({
        requestTimeoutMs: 1_000,
      }).forCluster('gpu-eu', {
        type: 'serviceAccount',
        url: BASE,
        serviceAccountToken: 'token',
        skipTLSVerify: true,
      }),
      retry: { maxAttempts: 2, initialDelayMs: 1, sleep: async () => {} },
    });
    const lines = (from = 0) =>
      api.requests.slice(from).map(r => `${r.method} ${r.path}`);
    const path = (object: KubernetesObject) => {
      const ref = refOf(object);
      const base = ref.apiVersion.includes('/')
        ? `/apis/${ref.apiVersion}`
        : `/api/${ref.apiVersion}`;
      const plural = {
        PodDisruptionBudget: 'poddisruptionbudgets',
        Deployment: 'deployments',
        Service: 'services',
        PersistentVolumeClaim: 'persistentvolumeclaims',
        LocalQueue: 'localqueues',
        PrometheusRule: 'prometheusrules',
      }[ref.kind];
      return `${base}/namespaces/${ref.namespace}/${plural}/${ref.name}`;
    };
    return { api, applier, lines, path };
  }

  const production = rendered();
  const staging = rendered({ environment: 'staging' });
  const pdb = production.find(o => o.kind === 'PodDisruptionBudget')!;

  it('lists each served kind by the ownership labels, skips kinds the cluster does not serve, deletes only what is stale', async () => {
    const { api, applier, lines, path } = setup();
    const otherService = {
      ...pdb,
      metadata: {
        ...pdb.metadata,
        name: 'other-service',
        labels: {
          ...pdb.metadata!.labels,
          'gpu.backstage.io/service-id': OTHER_ID,
        },
      },
    };
    const unlabelled = {
      ...pdb,
      metadata: { name: 'unlabelled', namespace: NAMESPACE },
    };
    await applier.apply([...production, otherService, unlabelled]);
    const from = api.requests.length;

    const pruned = await pruneServiceObjects(applier, {
      id: SERVICE_ID,
      namespace: NAMESPACE,
      manifests: staging,
    });

    expect(pruned).toEqual([refOf(pdb)]);
    const sent = lines(from);
    // One list per served kind, in the service's namespace, by its labels; no list of a kind not served.
    expect(sent.filter(l => l.includes('labelSelector'))).toEqual([
      `GET /api/v1/namespaces/${NAMESPACE}/persistentvolumeclaims?labelSelector=${SELECTOR}`,
      `GET /api/v1/namespaces/${NAMESPACE}/services?labelSelector=${SELECTOR}`,
      `GET /apis/apps/v1/namespaces/${NAMESPACE}/deployments?labelSelector=${SELECTOR}`,
      `GET /apis/policy/v1/namespaces/${NAMESPACE}/poddisruptionbudgets?labelSelector=${SELECTOR}`,
      `GET /apis/monitoring.coreos.com/v1/namespaces/${NAMESPACE}/prometheusrules?labelSelector=${SELECTOR}`,
    ]);
    expect(api.requests.slice(from).filter(r => r.method !== 'GET')).toEqual([
      expect.objectContaining({ method: 'DELETE', path: path(pdb) }),
    ]);
    expect(api.live(path(pdb))).toBeUndefined();
    for (const object of [...staging, otherService, unlabelled]) {
      expect(api.live(path(object))).toBeDefined();
    }
  });

  it('deletes the latency budget rule of a service that no longer states a budget', async () => {
    const { api, applier, path } = setup();
    const withBudget = rendered(
      { latencyBudget: { p95Seconds: 2 } },
      { alerts: ALERTS },
    );
    const rule = withBudget.find(o => o.kind === 'PrometheusRule')!;
    await applier.apply(withBudget);
    expect(api.live(path(rule))).toBeDefined();

    const without = rendered({}, { alerts: ALERTS });
    expect(
      await pruneServiceObjects(applier, {
        id: SERVICE_ID,
        namespace: NAMESPACE,
        manifests: without,
      }),
    ).toEqual([refOf(rule)]);
    expect(api.live(path(rule))).toBeUndefined();
    for (const object of without) {
      expect(api.live(path(object))).toBeDefined();
    }
  });

  it('applies and then prunes only a generation not applied yet, and prunes nothing when the apply fails', async () => {
    const { api, applier, lines, path } = setup();
    await applier.apply(production);

    // A drift repair of generation 2 (already applied): the apply only.
    let from = api.requests.length;
    expect(
      await applyAndPrune(applier, {
        id: SERVICE_ID,
        namespace: NAMESPACE,
        generation: 2,
        observedGeneration: 2,
        manifests: staging,
      }),
    ).toEqual([]);
    expect(lines(from).filter(l => !l.startsWith('PATCH'))).toEqual([]);
    expect(api.live(path(pdb))).toBeDefined();

    // Generation 3 refused by the cluster: nothing listed, nothing deleted.
    from = api.requests.length;
    const deployment = staging.find(o => o.kind === 'Deployment')!;
    api.faults.push({
      method: 'PATCH',
      path: `${path(deployment)}${SSA}`,
      failure: 422,
      message: 'admission webhook denied the request',
    });
    await expect(
      applyAndPrune(applier, {
        id: SERVICE_ID,
        namespace: NAMESPACE,
        generation: 3,
        observedGeneration: 2,
        manifests: staging,
      }),
    ).rejects.toBeInstanceOf(KubernetesApplyError);
    expect(
      lines(from).filter(
        l => l.includes('labelSelector') || l.startsWith('DELETE'),
      ),
    ).toEqual([]);
    expect(api.live(path(pdb))).toBeDefined();

    // Generation 3 applied: its PodDisruptionBudget of production goes.
    expect(
      await applyAndPrune(applier, {
        id: SERVICE_ID,
        namespace: NAMESPACE,
        generation: 3,
        observedGeneration: 2,
        manifests: staging,
      }),
    ).toEqual([refOf(pdb)]);
    expect(api.live(path(pdb))).toBeUndefined();
  });

  it('fails, naming the object, when the cluster refuses a delete', async () => {
    const { api, applier, path } = setup();
    await applier.apply(production);
    api.faults.push({
      method: 'DELETE',
      path: path(pdb),
      failure: 403,
      message: 'poddisruptionbudgets is forbidden',
    });
    await expect(
      pruneServiceObjects(applier, {
        id: SERVICE_ID,
        namespace: NAMESPACE,
        manifests: staging,
      }),
    ).rejects.toThrow(
      `PodDisruptionBudget ${NAMESPACE}/${
        pdb.metadata!.name
      } on cluster 'gpu-eu' failed after 1 attempt: 403`,
    );
    expect(api.live(path(pdb))).toBeDefined();
  });
});
