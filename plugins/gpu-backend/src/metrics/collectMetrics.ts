import {
  PrometheusClient,
  InstantSample,
  QueryResult,
  RangeSeries,
} from './PrometheusClient';
import { DcgmLabelNames } from './PrometheusConfig';
import { DCGM, KUBE_STATE, VLLM } from './metricNames';
import {
  collectSharedSteps,
  SharedStepFamilies,
  SharedTarget,
} from './sharedQueries';
import { stepGrid } from './stepGrid';
import {
  anyOf,
  dcgmBy,
  dcgmOutputLabels,
  dcgmSeries,
  PodMatch,
  podsOfDeployments,
  promString,
  seconds,
  windowIncrease,
  windowRange,
} from './promql';

/** A service whose metrics are wanted. */
export interface MetricTarget {
  namespace: string;
  /** Deployment name; its pods are `<deployment>-<hash>-<hash>`. */
  deployment: string;
  /** vLLM `model_name` label (the first served model name). */
  modelName: string;
  /** MPS or time-sliced: the device's other pods are needed to split its utilisation. */
  shared: boolean;
}

/** One DCGM series (a GPU or MIG instance as seen by one pod) reduced to a number. */
export interface DeviceSample {
  pod: string;
  namespace: string;
  hostname: string;
  gpu: string;
  migInstance?: string;
  migProfile?: string;
  value: number;
}

/** One vLLM figure of one pod. */
export interface PodSample {
  namespace: string;
  pod: string;
  modelName: string;
  value: number;
}

/** One figure of a service (namespace + Deployment), e.g. the steps of the window at which it had DCGM samples. */
export interface ServiceSample {
  namespace: string;
  deployment: string;
  value: number;
}

/** Result of one metric family: data, or why not. */
export type Family<T> = QueryResult<T>;

/** Everything measured over one window, one query per family. */
export interface WindowMetrics {
  util: Family<DeviceSample[]>;
  engine: Family<DeviceSample[]>;
  fbUsed: Family<DeviceSample[]>;
  fbUsedPeak: Family<DeviceSample[]>;
  fbFree: Family<DeviceSample[]>;
  power: Family<DeviceSample[]>;
  xidSamples: Family<DeviceSample[]>;
  xidLast: Family<DeviceSample[]>;
  /** Highest utilisation (0-100, or engine active x 100 for MIG) in the last 30 minutes. */
  recentPeakUtil: Family<DeviceSample[]>;
  generated: Family<PodSample[]>;
  prompt: Family<PodSample[]>;
  running: Family<PodSample[]>;
  waiting: Family<PodSample[]>;
  kvCache: Family<PodSample[]>;
  latencyP50: Family<PodSample[]>;
  latencyP95: Family<PodSample[]>;
  latencyP99: Family<PodSample[]>;
  /**
   * Per pod: `vllm:num_requests_running` averaged over the window's steps at which it ran any request (how many
   * requests it served at once while serving). No value: the pod ran none, or reports no such gauge.
   */
  concurrency?: Family<PodSample[]>;
  /**
   * Per DCGM series (GPU_UTIL, or ENGINE_ACTIVE where GPU_UTIL is absent): the steps of the window at which it had a
   * sample in the step before, i.e. the time it existed in steps (the weight of its mean).
   */
  seriesSteps?: Family<DeviceSample[]>;
  /** Per service: the steps of the window at which any of its pods had a DCGM sample (its coverage in steps). */
  serviceSteps?: Family<ServiceSample[]>;
  /**
   * Shared GPUs (MPS, time-sliced) of the shared-tier services, step by step (`sharedQueries.ts`): every pod's DCGM
   * utilisation on them, the pods kube-state-metrics places on their nodes, and the pods' tokens per step.
   */
  sharedUtil?: SharedStepFamilies['sharedUtil'];
  sharedPlacement?: SharedStepFamilies['sharedPlacement'];
  sharedTokens?: SharedStepFamilies['sharedTokens'];
}

/** The metric family names as the API reports them when missing. */
export const FAMILY_METRIC: Record<keyof WindowMetrics, string> = {
  util: DCGM.gpuUtil,
  engine: DCGM.engineActive,
  fbUsed: DCGM.fbUsed,
  fbUsedPeak: DCGM.fbUsed,
  fbFree: DCGM.fbFree,
  power: DCGM.power,
  xidSamples: DCGM.xid,
  xidLast: DCGM.xid,
  recentPeakUtil: DCGM.gpuUtil,
  generated: VLLM.generationTokens,
  prompt: VLLM.promptTokens,
  running: VLLM.running,
  waiting: VLLM.waiting,
  kvCache: VLLM.kvCache,
  latencyP50: VLLM.e2eLatency,
  latencyP95: VLLM.e2eLatency,
  latencyP99: VLLM.e2eLatency,
  concurrency: VLLM.running,
  seriesSteps: DCGM.gpuUtil,
  serviceSteps: DCGM.gpuUtil,
  sharedUtil: DCGM.gpuUtil,
  sharedPlacement: KUBE_STATE.resourceRequests,
  sharedTokens: VLLM.generationTokens,
};

/** Which pods to ask for: the given services, or every pod (the overview). */
export type MetricScope =
  | { kind: 'services'; targets: MetricTarget[] }
  | { kind: 'all' };

function toDevice(labels: DcgmLabelNames) {
  const out = dcgmOutputLabels(labels);
  return (s: InstantSample): DeviceSample => ({
    pod: s.labels[out.pod] ?? '',
    namespace: s.labels[out.namespace] ?? '',
    hostname: s.labels[out.hostname] ?? '',
    gpu: s.labels[out.gpu] ?? '',
    ...(s.labels[out.migInstance]
      ? { migInstance: s.labels[out.migInstance] }
      : {}),
    ...(s.labels[out.migProfile]
      ? { migProfile: s.labels[out.migProfile] }
      : {}),
    value: s.value,
  });
}

function toPod(s: InstantSample): PodSample {
  return {
    namespace: s.labels.namespace ?? '',
    pod: s.labels.pod ?? '',
    modelName: s.labels.model_name ?? '',
    value: s.value,
  };
}

function toService(labels: DcgmLabelNames) {
  const out = dcgmOutputLabels(labels);
  return (s: InstantSample): ServiceSample => ({
    namespace: s.labels[out.namespace] ?? '',
    deployment: s.labels.deployment ?? '',
    value: s.value,
  });
}

function map<A, B>(result: QueryResult<A[]>, f: (a: A) => B): QueryResult<B[]> {
  return result.ok ? { ...result, data: result.data.map(f) } : result;
}

/** Matchers of the DCGM and vLLM series of a scope. */
function scopeMatchers(scope: MetricScope): { dcgm: PodMatch; vllm: string } {
  if (scope.kind === 'all') {
    return { dcgm: {}, vllm: 'namespace!="",model_name!=""' };
  }
  const namespaces = anyOf(scope.targets.map(t => t.namespace));
  return {
    dcgm: {
      pod: podsOfDeployments(scope.targets.map(t => t.deployment)),
      namespace: namespaces,
    },
    vllm: `namespace=~${promString(namespaces)},model_name=~${promString(
      anyOf(scope.targets.map(t => t.modelName)),
    )}`,
  };
}

/**
 * Builds the PromQL of a window, one expression per metric family whatever the number of services: a regex over the
 * services' pods (or every pod for the overview) with `by (pod, namespace, ...)` aggregations.
 */
export function windowQueries(
  scope: MetricScope,
  windowSeconds: number,
  stepSeconds: number,
  labels: DcgmLabelNames,
): Record<
  Exclude<
    keyof WindowMetrics,
    'sharedUtil' | 'sharedPlacement' | 'sharedTokens'
  >,
  string
> {
  const { dcgm, vllm } = scopeMatchers(scope);
  const w = windowRange(windowSeconds);
  const by = dcgmBy(labels);
  const over = (metric: string, fn: string, range = w) =>
    `avg ${by} (${dcgmSeries(
      metric,
      dcgm,
      labels,
      sel => `${fn}(${sel}[${range}])`,
    )})`;
  const vllmSum = (expr: string) =>
    `sum by (namespace,pod,model_name) (${expr})`;
  // Each step point of the window stands for the step before it, (t - step, t], on 2.x and 3.x alike.
  const present = (sel: string) =>
    `last_over_time(${sel}[${windowRange(stepSeconds)}])`;
  const anyDcgm = `(${dcgmSeries(
    DCGM.gpuUtil,
    dcgm,
    labels,
    present,
  )} or ${dcgmSeries(DCGM.engineActive, dcgm, labels, present)})`;
  const steps = (expr: string) =>
    `count_over_time((${expr})[${w}:${seconds(stepSeconds)}])`;
  const out = dcgmOutputLabels(labels);
  const quantile = (q: number) =>
    `histogram_quantile(${q}, sum by (namespace,model_name,le) (increase(${VLLM.e2eLatency}_bucket{${vllm}}[${w}])))`;
  return {
    util: over(DCGM.gpuUtil, 'avg_over_time'),
    engine: over(DCGM.engineActive, 'avg_over_time'),
    fbUsed: over(DCGM.fbUsed, 'avg_over_time'),
    fbUsedPeak: over(DCGM.fbUsed, 'max_over_time'),
    fbFree: over(DCGM.fbFree, 'avg_over_time'),
    power: over(DCGM.power, 'avg_over_time'),
    xidSamples: `sum ${by} (${dcgmSeries(
      DCGM.xid,
      dcgm,
      labels,
      sel => `count_over_time((${sel} > 0)[${w}:${seconds(stepSeconds)}])`,
    )})`,
    xidLast: over(DCGM.xid, 'last_over_time'),
    recentPeakUtil: `max ${by} (${dcgmSeries(
      DCGM.gpuUtil,
      dcgm,
      labels,
      sel =>
        `max_over_time(${sel}[${windowRange(Math.min(1800, windowSeconds))}])`,
    )} or ${dcgmSeries(
      DCGM.engineActive,
      dcgm,
      labels,
      sel =>
        `max_over_time(${sel}[${windowRange(
          Math.min(1800, windowSeconds),
        )}]) * 100`,
    )})`,
    generated: vllmSum(
      windowIncrease(`${VLLM.generationTokens}{${vllm}}`, windowSeconds),
    ),
    prompt: vllmSum(
      windowIncrease(`${VLLM.promptTokens}{${vllm}}`, windowSeconds),
    ),
    running: vllmSum(`last_over_time(${VLLM.running}{${vllm}}[${w}])`),
    waiting: vllmSum(`last_over_time(${VLLM.waiting}{${vllm}}[${w}])`),
    kvCache: `avg by (namespace,pod,model_name) (last_over_time(${VLLM.kvCache}{${vllm}}[${w}]))`,
    latencyP50: quantile(0.5),
    latencyP95: quantile(0.95),
    latencyP99: quantile(0.99),
    // The pod's gauge at each step of the window (summed over its engines), where it ran any request, averaged.
    concurrency: `avg_over_time((${vllmSum(
      `${VLLM.running}{${vllm}}`,
    )} > 0)[${w}:${seconds(stepSeconds)}])`,
    seriesSteps: `max ${by} (${steps(anyDcgm)})`,
    serviceSteps: steps(
      `count by (${
        out.namespace
      },deployment) (label_replace(${anyDcgm},"deployment","$1",${promString(
        out.pod,
      )},"(.+)-[^-]+-[^-]+"))`,
    ),
  };
}

/** Families measured by the step-by-step shared GPU queries. */
const SHARED_FAMILIES: Array<keyof WindowMetrics> = [
  'sharedUtil',
  'sharedPlacement',
  'sharedTokens',
];

/**
 * Measures a window ending at `end` (unix seconds): every family in parallel, and, for services on shared GPUs, the
 * step-by-step view of those GPUs (two range queries at the window's step, `sharedQueries.ts`) so their busy time
 * can be split among the pods present at each step.
 */
export async function collectWindowMetrics(options: {
  client: PrometheusClient;
  scope: MetricScope;
  end: number;
  windowSeconds: number;
  stepSeconds: number;
  labels: DcgmLabelNames;
  /** Only these families (e.g. what cost needs); all when omitted. Missing families come back empty. */
  only?: Array<keyof WindowMetrics>;
  /** Services on shared GPUs; by default the shared targets of a `services` scope. */
  shared?: SharedTarget[];
}): Promise<WindowMetrics> {
  const { client, scope, end, windowSeconds, stepSeconds, labels, only } =
    options;
  const queries = windowQueries(scope, windowSeconds, stepSeconds, labels);
  const device = toDevice(labels);
  const service = toService(labels);
  const shared =
    options.shared ??
    (scope.kind === 'services' ? scope.targets.filter(t => t.shared) : []);
  const wantShared =
    shared.length > 0 && (!only || SHARED_FAMILIES.some(f => only.includes(f)));
  // The shared GPUs' range queries first: they take longest, and the instant queries take the slots left.
  const sharedSteps = wantShared
    ? collectSharedSteps({
        client,
        targets: shared,
        grid: stepGrid(end, windowSeconds, stepSeconds),
        labels,
      })
    : undefined;
  const [entries, sharedFamilies] = await Promise.all([
    Promise.all(
      Object.entries(queries).map(async ([key, promql]) => {
        if (only && !only.includes(key as keyof WindowMetrics)) {
          return [key, { ok: true, data: [] }] as const;
        }
        const result = await client.query(promql, end);
        if (key === 'serviceSteps') return [key, map(result, service)] as const;
        const isVllm =
          FAMILY_METRIC[key as keyof WindowMetrics].startsWith('vllm:');
        return [
          key,
          isVllm ? map(result, toPod) : map(result, device),
        ] as const;
      }),
    ),
    sharedSteps,
  ]);
  const metrics = Object.fromEntries(entries) as unknown as WindowMetrics;
  if (sharedFamilies) {
    for (const [key, family] of Object.entries(sharedFamilies)) {
      if (family) Object.assign(metrics, { [key]: family });
    }
  }
  return metrics;
}

/** The Deployment a pod name belongs to (`<deployment>-<replicaset hash>-<pod hash>`). */
export function deploymentOfPod(pod: string): string {
  const parts = pod.split('-');
  return parts.length >= 3 ? parts.slice(0, -2).join('-') : pod;
}

/** Time series of one service set for charts. */
export interface SeriesMetrics {
  util: Family<RangeSeries[]>;
  fbUsed: Family<RangeSeries[]>;
  generatedRate: Family<RangeSeries[]>;
  waiting: Family<RangeSeries[]>;
}

/** Range queries for the charts of the selected services, one per series kind. */
export async function collectSeries(options: {
  client: PrometheusClient;
  targets: MetricTarget[];
  start: number;
  end: number;
  stepSeconds: number;
  labels: DcgmLabelNames;
}): Promise<SeriesMetrics> {
  const { client, targets, start, end, stepSeconds, labels } = options;
  const { dcgm, vllm } = scopeMatchers({ kind: 'services', targets });
  const by = dcgmBy(labels);
  // Each point covers the step before it, (t - step, t], on 2.x and 3.x alike; a rate needs two samples, so it
  // looks two steps back (with samples every step, 3.x would find only one sample in a single step).
  const step = windowRange(stepSeconds);
  const rateRange = windowRange(2 * stepSeconds);
  const [util, fbUsed, generatedRate, waiting] = await Promise.all([
    client.queryRange(
      `avg ${by} (${dcgmSeries(
        DCGM.gpuUtil,
        dcgm,
        labels,
        sel => `avg_over_time(${sel}[${step}])`,
      )} or ${dcgmSeries(
        DCGM.engineActive,
        dcgm,
        labels,
        sel => `avg_over_time(${sel}[${step}]) * 100`,
      )})`,
      start,
      end,
      stepSeconds,
    ),
    client.queryRange(
      `avg ${by} (${dcgmSeries(
        DCGM.fbUsed,
        dcgm,
        labels,
        sel => `avg_over_time(${sel}[${step}])`,
      )})`,
      start,
      end,
      stepSeconds,
    ),
    client.queryRange(
      `sum by (namespace,model_name) (rate(${VLLM.generationTokens}{${vllm}}[${rateRange}]))`,
      start,
      end,
      stepSeconds,
    ),
    client.queryRange(
      `sum by (namespace,model_name) (last_over_time(${VLLM.waiting}{${vllm}}[${step}]))`,
      start,
      end,
      stepSeconds,
    ),
  ]);
  return { util, fbUsed, generatedRate, waiting };
}
