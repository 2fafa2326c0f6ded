import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import {
  autoscalingComponentFindings,
  autoscalingNeeds,
} from './autoscalingComponentFindings';

/** A cluster serving the kinds given, with the APIServices given (name -> Available status). */
function clusterOf(
  kinds: string[],
  apiServices: Record<string, 'True' | 'False'>,
): KubernetesObjectClient {
  return {
    apply: () => Promise.reject(new Error('not used')),
    delete: () => Promise.reject(new Error('not used')),
    list: () => Promise.reject(new Error('not used')),
    serves: async (apiVersion, kind) => kinds.includes(`${apiVersion} ${kind}`),
    read: async ref => {
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
    ).toEqual({ keda: ['ml/a'], hpa: ['ml/b'], httpAddOn: true });
  });
});
