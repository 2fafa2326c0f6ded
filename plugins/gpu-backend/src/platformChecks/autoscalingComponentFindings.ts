import {
  PlatformFinding,
  ServiceDefaults,
  ServiceSettings,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { KubernetesObjectClient, KubernetesRequestError } from '../cluster';
import { ServiceRecord } from '../database';

/** What the services on a cluster (and the platform's scale-to-zero setting) need to autoscale. */
export interface AutoscalingNeeds {
  /** Services with `autoscaling.engine: keda`. */
  keda: string[];
  /** Services with `autoscaling.engine: hpa`. */
  hpa: string[];
  /** Whether the service settings wake services at zero through KEDA's HTTP add-on. */
  httpAddOn: boolean;
}

function wakesThroughHttpAddOn(settings: ServiceSettings): boolean {
  return settings.wakeTrigger?.type === 'http-add-on';
}

/** The autoscaling components the running services and the service settings call for. */
export function autoscalingNeeds(
  running: ServiceRecord[],
  serviceDefaults: ServiceDefaults | undefined,
): AutoscalingNeeds {
  const named = (engine: 'keda' | 'hpa') =>
    running
      .filter(s => s.request.autoscaling?.engine === engine)
      .map(s => `${s.namespace}/${s.name}`);
  return {
    keda: named('keda'),
    hpa: named('hpa'),
    httpAddOn: serviceDefaults
      ? [
          serviceDefaults.defaults,
          ...Object.values(serviceDefaults.byPool),
          ...Object.values(serviceDefaults.byEnvironment),
        ].some(wakesThroughHttpAddOn)
      : false,
  };
}

interface ApiService {
  spec?: { service?: { namespace?: string; name?: string } };
  status?: {
    conditions?: Array<{ type: string; status: string; message?: string }>;
  };
}

/** The APIService of a metrics API: missing, unavailable (with why) or served. */
async function metricsApi(
  client: KubernetesObjectClient,
  name: string,
): Promise<
  | { state: 'missing' }
  | { state: 'unavailable'; why: string }
  | { state: 'available'; service: string }
> {
  try {
    const apiService = (await client.read({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      name,
    })) as ApiService;
    const available = apiService.status?.conditions?.find(
      c => c.type === 'Available',
    );
    const service = apiService.spec?.service
      ? `${apiService.spec.service.namespace}/${apiService.spec.service.name}`
      : 'the API server itself';
    return available?.status === 'True'
      ? { state: 'available', service }
      : {
          state: 'unavailable',
          why: `${service}: ${available?.message ?? 'no Available condition'}`,
        };
  } catch (error) {
    if (error instanceof KubernetesRequestError && error.statusCode === 404) {
      return { state: 'missing' };
    }
    throw error;
  }
}

function some(names: string[]): string {
  return names.length > 3
    ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
    : names.join(', ');
}

/**
 * What a cluster lacks for the autoscaling its services and settings ask for:
 *
 * - `keda-missing`: services scale with KEDA (or scale to zero through its HTTP add-on) and the cluster does not
 *   serve `keda.sh/v1alpha1` ScaledObjects: the operator is not installed, the objects would be refused.
 * - `keda-metrics-api-unavailable`: KEDA's CRDs are there but the `v1beta1.external.metrics.k8s.io` APIService (KEDA's
 *   metrics API server) is missing or not Available: the HPAs KEDA makes cannot read their metric and never scale.
 * - `keda-http-add-on-missing`: services scale to zero through the HTTP add-on and the cluster does not serve
 *   `http.keda.sh/v1alpha1` HTTPScaledObjects: nothing would hold requests nor wake them.
 * - `hpa-metrics-adapter-missing`: services scale with a plain HPA on `vllm:num_requests_waiting` per pod (a Pods
 *   metric, read from `custom.metrics.k8s.io`) and no adapter serves that API.
 *
 * Nothing when no service autoscales and no setting wakes through the add-on.
 */
export async function autoscalingComponentFindings(
  cluster: string,
  needs: AutoscalingNeeds,
  client: KubernetesObjectClient,
): Promise<PlatformFinding[]> {
  const findings: PlatformFinding[] = [];
  const base = {
    severity: 'error' as const,
    source: 'cluster' as const,
    cluster,
  };
  const kedaUsers = [
    ...needs.keda,
    ...(needs.httpAddOn
      ? ['scale to zero (gpu.serviceDefaults scaleToZero.httpAddOn)']
      : []),
  ];
  if (kedaUsers.length > 0) {
    if (!(await client.serves('keda.sh/v1alpha1', 'ScaledObject'))) {
      findings.push({
        ...base,
        id: 'keda-missing',
        where: 'API group keda.sh/v1alpha1',
        message: `Cluster ${cluster} does not serve KEDA ScaledObjects, which ${some(
          kedaUsers,
        )} scale with: their autoscalers would be refused and they would stay at their first size`,
        fix: 'Install KEDA 2.21 (Helm chart kedacore/keda: the operator and its metrics API server)',
      });
    } else {
      const api = await metricsApi(client, 'v1beta1.external.metrics.k8s.io');
      if (api.state !== 'available') {
        findings.push({
          ...base,
          id: 'keda-metrics-api-unavailable',
          where: 'APIService v1beta1.external.metrics.k8s.io',
          message:
            api.state === 'missing'
              ? `Cluster ${cluster} has KEDA's CRDs but no external metrics API (APIService v1beta1.external.metrics.k8s.io): the HPAs KEDA makes for ${some(
                  kedaUsers,
                )} cannot read the queue depth and never scale`
              : `The external metrics API of cluster ${cluster} is not available (${
                  api.why
                }): the HPAs KEDA makes for ${some(
                  kedaUsers,
                )} cannot read the queue depth and do not scale`,
          fix:
            api.state === 'missing'
              ? "Install KEDA's metrics API server (keda-operator-metrics-apiserver, part of the kedacore/keda chart), which registers the APIService"
              : "Check KEDA's metrics API server (keda-operator-metrics-apiserver) is running and reachable from the API server (its Service, and the aggregation layer's front-proxy certificates)",
        });
      }
    }
  }
  if (
    needs.httpAddOn &&
    !(await client.serves('http.keda.sh/v1alpha1', 'HTTPScaledObject'))
  ) {
    findings.push({
      ...base,
      id: 'keda-http-add-on-missing',
      where: 'API group http.keda.sh/v1alpha1',
      message: `Services scale to zero through KEDA's HTTP add-on (gpu.serviceDefaults scaleToZero.httpAddOn) but cluster ${cluster} does not serve HTTPScaledObjects: nothing would hold their requests at zero nor wake them`,
      fix: "Install KEDA's HTTP add-on 0.12 (Helm chart kedacore/keda-add-ons-http: operator, interceptor, scaler), and give users the interceptor's address",
    });
  }
  if (needs.hpa.length > 0) {
    const api = await metricsApi(client, 'v1beta1.custom.metrics.k8s.io');
    if (api.state !== 'available') {
      findings.push({
        ...base,
        id: 'hpa-metrics-adapter-missing',
        where: 'APIService v1beta1.custom.metrics.k8s.io',
        message: `${some(
          needs.hpa,
        )} scale with an HPA on vllm:num_requests_waiting per pod, but cluster ${cluster} ${
          api.state === 'missing'
            ? 'has no custom metrics API (APIService v1beta1.custom.metrics.k8s.io)'
            : `cannot serve its custom metrics API (${api.why})`
        }: the HPAs cannot read the metric and never scale`,
        fix: 'Install a metrics adapter serving vllm:num_requests_waiting as a Pods metric from Prometheus (prometheus-adapter, or KEDA and autoscaling.engine keda)',
      });
    }
  }
  return findings;
}
