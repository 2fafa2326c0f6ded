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
  /**
   * The KEDA objects of the running services' manifests: each ScaledObject is for KEDA's operator to take up, each
   * HTTPScaledObject for the HTTP add-on's operator. Absent: none is checked.
   */
  autoscalers?: AutoscalerObject[];
}

/** A ScaledObject or HTTPScaledObject a service's manifests hold. */
export interface AutoscalerObject {
  apiVersion: string;
  kind: 'ScaledObject' | 'HTTPScaledObject';
  namespace: string;
  name: string;
}

/**
 * How long an operator may take to set the first `Ready` condition of an object it watches before the check says it
 * does not run: KEDA's operator and the HTTP add-on's set it on their first reconcile, seconds after the apply.
 */
export const OPERATOR_GRACE_MS = 2 * 60_000;

const KEDA_KINDS = new Set(['ScaledObject', 'HTTPScaledObject']);

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
  const autoscalers = running.flatMap(service =>
    (service.manifests ?? [])
      .filter(m => KEDA_KINDS.has(m.kind))
      .map(m => {
        const metadata = m.metadata as { name?: string; namespace?: string };
        return {
          apiVersion: m.apiVersion,
          kind: m.kind as AutoscalerObject['kind'],
          namespace: metadata?.namespace ?? service.namespace,
          name: metadata?.name ?? service.name,
        };
      }),
  );
  return {
    keda: named('keda'),
    hpa: named('hpa'),
    autoscalers,
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

interface OperatorStatus {
  metadata?: { creationTimestamp?: string };
  status?: { conditions?: Array<{ type: string }> };
}

/**
 * The objects of `kind` that no operator has taken up: in the cluster for longer than {@link OPERATOR_GRACE_MS} and
 * still without a `Ready` condition (KEDA's operator and the HTTP add-on's set one, True or False, on their first
 * reconcile). Objects not in the cluster are not counted (the service's drift says so).
 */
async function untaken(
  client: KubernetesObjectClient,
  objects: AutoscalerObject[],
  kind: AutoscalerObject['kind'],
  now: number,
): Promise<string[]> {
  const names: string[] = [];
  for (const ref of objects.filter(o => o.kind === kind)) {
    let object: OperatorStatus | undefined;
    try {
      object = (await client.read(ref)) as OperatorStatus | undefined;
    } catch (error) {
      if (error instanceof KubernetesRequestError && error.statusCode === 404) {
        continue;
      }
      throw error;
    }
    if (!object) continue;
    const created = Date.parse(object.metadata?.creationTimestamp ?? '');
    const ready = object.status?.conditions?.some(c => c.type === 'Ready');
    if (
      !ready &&
      Number.isFinite(created) &&
      now - created > OPERATOR_GRACE_MS
    ) {
      names.push(`${ref.namespace}/${ref.name}`);
    }
  }
  return names;
}

/** What an operator that takes up none of `idle` leaves undone, for a finding's message. */
function notTakenUp(
  idle: string[],
  undone: (object: 'it' | 'them') => string,
): string {
  const one = idle.length === 1;
  return `${some(idle)} ${one ? 'has' : 'have'} no Ready condition ${
    OPERATOR_GRACE_MS / 60_000
  } minutes after ${one ? 'its' : 'their'} creation, so nothing ${undone(
    one ? 'it' : 'them',
  )}`;
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
 *   serve `keda.sh/v1alpha1` ScaledObjects: the operator is not installed, the objects would be refused. Or the CRDs
 *   are there but no operator takes up the services' ScaledObjects (none has a `Ready` condition
 *   {@link OPERATOR_GRACE_MS} after its creation): CRDs alone scale nothing.
 * - `keda-metrics-api-unavailable`: KEDA's CRDs are there but the `v1beta1.external.metrics.k8s.io` APIService (KEDA's
 *   metrics API server) is missing or not Available: the HPAs KEDA makes cannot read their metric and never scale.
 * - `keda-http-add-on-missing`: services scale to zero through the HTTP add-on and the cluster does not serve
 *   `http.keda.sh/v1alpha1` HTTPScaledObjects: nothing would hold requests nor wake them. Or the CRD is there but
 *   no add-on operator takes up the services' HTTPScaledObjects (no `Ready` condition in time).
 * - `hpa-metrics-adapter-missing`: services scale with a plain HPA on `vllm:num_requests_waiting` per pod (a Pods
 *   metric, read from `custom.metrics.k8s.io`) and no adapter serves that API.
 *
 * Nothing when no service autoscales and no setting wakes through the add-on.
 */
export async function autoscalingComponentFindings(
  cluster: string,
  needs: AutoscalingNeeds,
  client: KubernetesObjectClient,
  now: number = Date.now(),
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
      const idle = await untaken(
        client,
        needs.autoscalers ?? [],
        'ScaledObject',
        now,
      );
      if (idle.length > 0) {
        findings.push({
          ...base,
          id: 'keda-missing',
          where: `ScaledObject ${idle[0]}`,
          message: `Cluster ${cluster} has KEDA's CRDs but no KEDA operator takes up its ScaledObjects: ${notTakenUp(
            idle,
            it => `scales ${it}`,
          )}`,
          fix: 'Install KEDA 2.21 (Helm chart kedacore/keda: the operator and its metrics API server), or check that its keda-operator Deployment runs and watches these namespaces',
        });
      }
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
  if (needs.httpAddOn) {
    if (!(await client.serves('http.keda.sh/v1alpha1', 'HTTPScaledObject'))) {
      findings.push({
        ...base,
        id: 'keda-http-add-on-missing',
        where: 'API group http.keda.sh/v1alpha1',
        message: `Services scale to zero through KEDA's HTTP add-on (gpu.serviceDefaults scaleToZero.httpAddOn) but cluster ${cluster} does not serve HTTPScaledObjects: nothing would hold their requests at zero nor wake them`,
        fix: "Install KEDA's HTTP add-on 0.12 (Helm chart kedacore/keda-add-ons-http: operator, interceptor, scaler), and give users the interceptor's address",
      });
    } else {
      const idle = await untaken(
        client,
        needs.autoscalers ?? [],
        'HTTPScaledObject',
        now,
      );
      if (idle.length > 0) {
        findings.push({
          ...base,
          id: 'keda-http-add-on-missing',
          where: `HTTPScaledObject ${idle[0]}`,
          message: `Cluster ${cluster} has the HTTP add-on's CRD but no add-on operator takes up its HTTPScaledObjects: ${notTakenUp(
            idle,
            it => `scales ${it} to zero nor wakes ${it}`,
          )}`,
          fix: "Install KEDA's HTTP add-on 0.12 (Helm chart kedacore/keda-add-ons-http: operator, interceptor, scaler), or check that its operator Deployment runs",
        });
      }
    }
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
