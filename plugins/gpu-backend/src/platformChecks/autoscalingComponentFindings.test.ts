import type { KubernetesObject } from '@kubernetes/client-node';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import {
  AutoscalerObject,
  autoscalingComponentFindings,
  autoscalingNeeds,
  OPERATOR_GRACE_MS,
} from './autoscalingComponentFindings';

/**
 * A cluster serving the kinds given, with the APIServices given (name -> Available status) and other objects by
 * `Kind namespace/name`.
 */
function clusterOf(
  kinds: string[],
  apiServices: Record<string, 'True' | 'False'>,
  objects: Record<string, KubernetesObject> = {},
): KubernetesObjectClient {
  return {
    apply: () => Promise.reject(new Error('not used')),
    delete: () => Promise.reject(new Error('not used')),
    list: () => Promise.reject(new Error('not used')),
    serves: async (apiVersion, kind) => kinds.includes(`${apiVersion} ${kind}`),
    read: async ref => {
      const object = objects[`${ref.kind} ${ref.namespace}/${ref.name}`];
      if (object) return object;
      const status = apiServices[ref.name];
      if (ref.kind !== 'APIService' || !status) {
        throw new KubernetesRequestError('not found', 'http', 404);
      }
      return {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: { name: ref.name },
        spec: {
          service: { namespace: 'keda', name: 'keda-metrics-apiserver' },
        },
        status: {
          conditions: [
            {
              type: 'Available',
              status,
              message: status === 'False' ? 'failing or missing response' : '',
            },
          ],
        },
      };
    },
  };
}

const KEDA_KINDS = [
  'keda.sh/v1alpha1 ScaledObject',
  'http.keda.sh/v1alpha1 HTTPScaledObject',
];
const EXTERNAL = 'v1beta1.external.metrics.k8s.io';
const CUSTOM = 'v1beta1.custom.metrics.k8s.io';

describe('autoscalingComponentFindings', () => {
  const NOW = Date.parse('2026-12-02T20:00:00Z');

  /** A KEDA object of a service, created `ageMs` before NOW, with the conditions given (none: never reconciled). */
  function kedaObject(
    ref: AutoscalerObject,
    ageMs: number,
    conditions?: Array<{ type: string; status: string }>,
  ): Record<string, KubernetesObject> {
    return {
      [`${ref.kind} ${ref.namespace}/${ref.name}`]: {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        metadata: {
          name: ref.name,
          namespace: ref.namespace,
          creationTimestamp: new Date(NOW - ageMs).toISOString() as never,
        },
        ...(conditions && { status: { conditions } }),
      } as KubernetesObject,
    };
  }

  const scaledObject = (name: string): AutoscalerObject => ({
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    namespace: 'ml',
    name,
  });
  const httpScaledObject = (name: string): AutoscalerObject => ({
    apiVersion: 'http.keda.sh/v1alpha1',
    kind: 'HTTPScaledObject',
    namespace: 'ml',
    name,
  });
  const ready = [{ type: 'Ready', status: 'True' }];
  const served = { [EXTERNAL]: 'True' as const };

  it('finds no KEDA operator when the CRDs are there but no ScaledObject was taken up in time', async () => {
    const autoscalers = [
      scaledObject('chat'),
      scaledObject('summary'),
      scaledObject('fresh'),
      scaledObject('gone'),
    ];
    const findings = await autoscalingComponentFindings(
      'gpu-eu',
      {
        keda: ['ml/chat', 'ml/summary'],
        hpa: [],
        httpAddOn: false,
        autoscalers,
      },
      clusterOf(KEDA_KINDS, served, {
        ...kedaObject(autoscalers[0], OPERATOR_GRACE_MS + 1000),
        ...kedaObject(autoscalers[1], 10 * OPERATOR_GRACE_MS),
        // Created moments ago: the operator may not have reconciled it yet.
        ...kedaObject(autoscalers[2], 5_000),
        // 'gone' is not in the cluster: drift, not this check's.
      }),
      NOW,
    );
    expect(findings).toEqual([
      {
        id: 'keda-missing',
        severity: 'error',
        source: 'cluster',
        cluster: 'gpu-eu',
        where: 'ScaledObject ml/chat',
        message:
          "Cluster gpu-eu has KEDA's CRDs but no KEDA operator takes up its ScaledObjects: ml/chat, ml/summary have no Ready condition 2 minutes after their creation, so nothing scales them",
        fix: 'Install KEDA 2.21 (Helm chart kedacore/keda: the operator and its metrics API server), or check that its keda-operator Deployment runs and watches these namespaces',
      },
    ]);
  });

  it('finds nothing of the operator once it has set a Ready condition, True or False', async () => {
    const autoscalers = [scaledObject('chat'), scaledObject('summary')];
    expect(
      await autoscalingComponentFindings(
        'gpu-eu',
        {
          keda: ['ml/chat', 'ml/summary'],
          hpa: [],
          httpAddOn: false,
          autoscalers,
        },
        clusterOf(KEDA_KINDS, served, {
          ...kedaObject(autoscalers[0], 10 * OPERATOR_GRACE_MS, ready),
          ...kedaObject(autoscalers[1], 10 * OPERATOR_GRACE_MS, [
            { type: 'Ready', status: 'False' },
          ]),
        }),
        NOW,
      ),
    ).toEqual([]);
  });

  it('finds no HTTP add-on operator when its CRD is there but no HTTPScaledObject was taken up in time', async () => {
    const autoscalers = [httpScaledObject('idle')];
    const findings = await autoscalingComponentFindings(
      'gpu-eu',
      { keda: ['ml/idle'], hpa: [], httpAddOn: true, autoscalers },
      clusterOf(KEDA_KINDS, served, {
        ...kedaObject(autoscalers[0], OPERATOR_GRACE_MS + 1000),
      }),
      NOW,
    );
    expect(findings).toEqual([
      expect.objectContaining({
        id: 'keda-http-add-on-missing',
        where: 'HTTPScaledObject ml/idle',
        message:
          "Cluster gpu-eu has the HTTP add-on's CRD but no add-on operator takes up its HTTPScaledObjects: ml/idle has no Ready condition 2 minutes after its creation, so nothing scales it to zero nor wakes it",
        fix: expect.stringMatching(/keda-add-ons-http/),
      }),
    ]);
    expect(
      await autoscalingComponentFindings(
        'gpu-eu',
        { keda: ['ml/idle'], hpa: [], httpAddOn: true, autoscalers },
        clusterOf(KEDA_KINDS, served, {
          ...kedaObject(autoscalers[0], OPERATOR_GRACE_MS + 1000, ready),
        }),
        NOW,
      ),
    ).toEqual([]);
  });

  const kedaAndHpa = {
    keda: ['ml/chat'],
    hpa: ['ml/summary'],
    httpAddOn: true,
  };

  it('finds nothing when KEDA, its metrics API, the HTTP add-on and a custom metrics adapter all serve', async () => {
    expect(
      await autoscalingComponentFindings(
        'gpu-eu',
        kedaAndHpa,
        clusterOf(KEDA_KINDS, { [EXTERNAL]: 'True', [CUSTOM]: 'True' }),
      ),
    ).toEqual([]);
  });

  it('reads nothing when no service autoscales and nothing scales to zero', async () => {
    expect(
      await autoscalingComponentFindings(
        'gpu-eu',
        { keda: [], hpa: [], httpAddOn: false },
        clusterOf([], {}),
      ),
    ).toEqual([]);
  });

  it('names each missing piece with what to install', async () => {
    const findings = await autoscalingComponentFindings(
      'gpu-eu',
      kedaAndHpa,
      clusterOf([], {}),
    );
    expect(findings.map(f => f.id)).toEqual([
      'keda-missing',
      'keda-http-add-on-missing',
      'hpa-metrics-adapter-missing',
    ]);
    expect(findings[0].fix).toMatch(/kedacore\/keda/);
    expect(findings[1].fix).toMatch(/keda-add-ons-http/);
    expect(findings[2].fix).toMatch(/prometheus-adapter/);
  });

  it('says the external metrics API is missing or unavailable when KEDA’s CRDs are there', async () => {
    const missing = await autoscalingComponentFindings(
      'gpu-eu',
      { keda: ['ml/chat'], hpa: [], httpAddOn: false },
      clusterOf(KEDA_KINDS, {}),
    );
    expect(missing).toEqual([
      expect.objectContaining({
        id: 'keda-metrics-api-unavailable',
        where: `APIService ${EXTERNAL}`,
      }),
    ]);
    const down = await autoscalingComponentFindings(
      'gpu-eu',
      { keda: ['ml/chat'], hpa: [], httpAddOn: false },
      clusterOf(KEDA_KINDS, { [EXTERNAL]: 'False' }),
    );
    expect(down[0].message).toMatch(
      /keda\/keda-metrics-apiserver: failing or missing response/,
    );
  });
});

describe('autoscalingNeeds', () => {
  it('lists the services per engine and whether settings wake through the HTTP add-on', () => {
    const service = (name: string, engine?: 'keda' | 'hpa') =>
      ({
        name,
        namespace: 'ml',
        request: engine
          ? {
              autoscaling: {
                engine,
                minReplicas: 1,
                maxReplicas: 2,
                targetQueueDepth: 2,
              },
            }
          : {},
      } as never);
    expect(
      autoscalingNeeds(
        [service('a', 'keda'), service('b', 'hpa'), service('c')],
        {
          defaults: {},
          byPool: {},
          byEnvironment: {
            dev: {
              wakeTrigger: { type: 'http-add-on', scaledownPeriodSeconds: 300 },
            },
          },
        },
      ),
    ).toEqual({
      keda: ['ml/a'],
      hpa: ['ml/b'],
      httpAddOn: true,
      autoscalers: [],
    });
  });

  it('lists the ScaledObjects and HTTPScaledObjects of the running services’ manifests', () => {
    const service = (name: string, kind?: string) =>
      ({
        name,
        namespace: 'ml',
        request: {},
        manifests: [
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name } },
          ...(kind
            ? [
                {
                  apiVersion: kind.startsWith('HTTP')
                    ? 'http.keda.sh/v1alpha1'
                    : 'keda.sh/v1alpha1',
                  kind,
                  metadata: { name: `${name}-scaler`, namespace: 'ml' },
                },
              ]
            : []),
        ],
      } as never);
    expect(
      autoscalingNeeds(
        [
          service('queue', 'ScaledObject'),
          service('idle', 'HTTPScaledObject'),
          service('fixed'),
        ],
        undefined,
      ).autoscalers,
    ).toEqual([
      {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        namespace: 'ml',
        name: 'queue-scaler',
      },
      {
        apiVersion: 'http.keda.sh/v1alpha1',
        kind: 'HTTPScaledObject',
        namespace: 'ml',
        name: 'idle-scaler',
      },
    ]);
  });
});
