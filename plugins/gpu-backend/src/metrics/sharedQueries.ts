import { PrometheusClient, QueryResult, RangeSeries } from './PrometheusClient';
import { DcgmLabelNames } from './PrometheusConfig';
import { DCGM, KUBE_STATE, VLLM } from './metricNames';
import {
  anyOf,
  dcgmBy,
  dcgmOutputLabels,
  dcgmSeries,
  PodMatch,
  podsOfDeployments,
  promString,
  stepIncrease,
  windowRange,
} from './promql';
import { StepGrid } from './stepGrid';

/** One pod's DCGM GPU utilisation (percent) on one GPU at each step of the window (step time -> mean of the step). */
export interface DeviceSteps {
  namespace: string;
  pod: string;
  hostname: string;
  gpu: string;
  points: Map<number, number>;
  /** How many samples each step's mean is of, when known (a gap or a pod's arrival inside a step leaves fewer). */
  samples?: Map<number, number>;
}

/** The steps at which kube-state-metrics shows a pod holding an `nvidia.com/gpu*` resource on a node. */
export interface PlacementSteps {
  namespace: string;
  pod: string;
  hostname: string;
  steps: Set<number>;
}

/** One pod's generated tokens in each step (`stepIncrease`: counter resets handled as `increase()` does). */
export interface TokenSteps {
  namespace: string;
  pod: string;
  points: Map<number, number>;
  /** vLLM samples of the pod in each step, when known: a step without any (missed scrapes) has unknown tokens. */
  samples?: Map<number, number>;
}

/** The step-resolution view of the shared GPUs of a set of services (see `collectSharedSteps`). */
export interface SharedStepFamilies {
  sharedUtil: QueryResult<DeviceSteps[]>;
  /** Absent when the presence query failed (`sharedUtil` says why). */
  sharedPlacement?: QueryResult<PlacementSteps[]>;
  /** Absent when there was nothing to ask for. */
  sharedTokens?: QueryResult<TokenSteps[]>;
}

/** A service whose shared GPUs are wanted. */
export interface SharedTarget {
  namespace: string;
  deployment: string;
}

/** Label marking the kube-state-metrics series (and the DCGM sample counts) in the presence answer. */
const PLACEMENT = 'gpu_usage_source';
const SAMPLES = 'dcgm-samples';

/**
 * One range query for the shared GPUs of `targets`, at each step: the DCGM utilisation of every pod on the hosts
 * where a target's pod was at that step (by its DCGM series or by kube-state-metrics' GPU request on the node), and,
 * marked `gpu_usage_source="kube-state-metrics"`, the pods kube-state-metrics places on those hosts holding a GPU
 * (an exporter that labels one pod of a shared GPU leaves the others without DCGM series).
 */
export function sharedPresenceQuery(
  targets: SharedTarget[],
  stepSeconds: number,
  labels: DcgmLabelNames,
): string {
  const out = dcgmOutputLabels(labels);
  const host = out.hostname;
  const step = windowRange(stepSeconds);
  const mine = targetPods(targets);
  const kube = { ...labels, hostname: 'node' };
  const gpuRequests = (match: PodMatch) =>
    dcgmSeries(
      KUBE_STATE.resourceRequests,
      { ...match, extra: `resource=~${promString(KUBE_STATE.gpuResource)}` },
      kube,
      sel => `last_over_time(${sel}[${step}])`,
    );
  const onHost = (expr: string) =>
    `label_replace(${expr},${promString(host)},"$1","node","(.+)")`;
  const hostsOfTargets = `(group by (${host}) (${dcgmSeries(
    DCGM.gpuUtil,
    mine,
    labels,
    sel => `last_over_time(${sel}[${step}])`,
  )}) or group by (${host}) (${onHost(gpuRequests(mine))}))`;
  const dcgm = `avg ${dcgmBy(labels)} (${dcgmSeries(
    DCGM.gpuUtil,
    {},
    labels,
    sel => `avg_over_time(${sel}[${step}])`,
  )}) and on (${host}) ${hostsOfTargets}`;
  const counts = `label_replace(max ${dcgmBy(labels)} (${dcgmSeries(
    DCGM.gpuUtil,
    {},
    labels,
    sel => `count_over_time(${sel}[${step}])`,
  )}),"${PLACEMENT}","${SAMPLES}","","") and on (${host}) ${hostsOfTargets}`;
  const placed = `label_replace(${onHost(
    `max by (${out.namespace},${out.pod},node) (${gpuRequests({})})`,
  )},"${PLACEMENT}","kube-state-metrics","node",".*") and on (${host}) ${hostsOfTargets}`;
  return `(${dcgm}) or (${placed}) or (${counts})`;
}

/**
 * One range query: the generated tokens in each step of the pods `match` covers (`namespace` and `pod` regexes of the
 * vLLM series).
 */
export function sharedTokensQuery(
  match: PodMatch,
  stepSeconds: number,
): string {
  const selector = `${VLLM.generationTokens}{namespace=~${promString(
    match.namespace ?? '.*',
  )},pod=~${promString(match.pod ?? '.*')}}`;
  return `sum by (namespace,pod) (${stepIncrease(
    selector,
    stepSeconds,
  )}) or label_replace(max by (namespace,pod) (count_over_time(${selector}[${windowRange(
    stepSeconds,
  )}])),"${PLACEMENT}","${SAMPLES}","","")`;
}

/** The pods of the targets' Deployments, as the presence query matches them (`podsOfDeployments`). */
function targetPods(targets: SharedTarget[]): PodMatch {
  return {
    pod: podsOfDeployments(targets.map(t => t.deployment)),
    namespace: anyOf(targets.map(t => t.namespace)),
  };
}

/** Whether {@link targetPods} of `targets` covers a pod (the same test as its regexes, by set lookups). */
function coveredByTargets(targets: SharedTarget[]) {
  const namespaces = new Set(targets.map(t => t.namespace));
  const deployments = new Set(targets.map(t => t.deployment));
  return (p: { namespace: string; pod: string }) => {
    const deployment = /^(.+)-[a-z0-9]+-[a-z0-9]+$/.exec(p.pod)?.[1];
    return (
      namespaces.has(p.namespace) &&
      deployment !== undefined &&
      deployments.has(deployment)
    );
  };
}

const pointsOf = (s: RangeSeries) => new Map(s.points);

/**
 * Measures the shared GPUs of `targets` step by step over `grid` (range queries at the window's step, whatever the
 * number of services): who was on each GPU at each step, its DCGM values, and the pods' tokens per step. The tokens of
 * the targets' own pods are asked alongside the presence query, not after it (it is the slowest query of a window):
 * only the tokens of neighbours the targets do not cover (another team's pod on the same GPU) wait for its answer.
 */
export async function collectSharedSteps(options: {
  client: PrometheusClient;
  targets: SharedTarget[];
  grid: StepGrid;
  labels: DcgmLabelNames;
}): Promise<SharedStepFamilies> {
  const { client, targets, grid, labels } = options;
  const out = dcgmOutputLabels(labels);
  // One step more at each end, never attributed: a pod arriving or leaving in the window's first or last step has its
  // token rate read from the step beside it (`tokenRate` in usage/sharedDevices.ts), e.g. on the last hour of a day.
  const start = grid.start - grid.step;
  const end = grid.end + grid.step;
  const tokensOf = (match: PodMatch) =>
    client.queryRange(
      sharedTokensQuery(match, grid.step),
      start,
      end,
      grid.step,
    );
  const [presence, targetTokens] = await Promise.all([
    client.queryRange(
      sharedPresenceQuery(targets, grid.step, labels),
      start,
      end,
      grid.step,
    ),
    tokensOf(targetPods(targets)),
  ]);
  if (!presence.ok) return { sharedUtil: presence };
  const warnings = presence.warnings ? { warnings: presence.warnings } : {};
  const util: DeviceSteps[] = [];
  const placement: PlacementSteps[] = [];
  const samples = new Map<string, Map<number, number>>();
  const deviceKey = (l: Record<string, string>) =>
    `${l[out.namespace] ?? ''}/${l[out.pod] ?? ''}@${l[out.hostname] ?? ''}/${
      l[out.gpu] ?? ''
    }`;
  for (const s of presence.data) {
    const namespace = s.labels[out.namespace] ?? '';
    const pod = s.labels[out.pod] ?? '';
    const hostname = s.labels[out.hostname] ?? '';
    if (s.labels[PLACEMENT] === SAMPLES) {
      if (!s.labels[out.migInstance])
        samples.set(deviceKey(s.labels), pointsOf(s));
    } else if (s.labels[PLACEMENT]) {
      placement.push({
        namespace,
        pod,
        hostname,
        steps: new Set(s.points.map(([t]) => t)),
      });
    } else if (!s.labels[out.migInstance]) {
      util.push({
        namespace,
        pod,
        hostname,
        gpu: s.labels[out.gpu] ?? '',
        points: pointsOf(s),
      });
    }
  }
  for (const u of util) {
    const counts = samples.get(
      deviceKey({
        [out.namespace]: u.namespace,
        [out.pod]: u.pod,
        [out.hostname]: u.hostname,
        [out.gpu]: u.gpu,
      }),
    );
    if (counts) u.samples = counts;
  }
  const families: SharedStepFamilies = {
    sharedUtil: { ok: true, data: util, ...warnings },
    sharedPlacement: { ok: true, data: placement },
  };
  const pods = new Map(
    [...util, ...placement].map(p => [`${p.namespace}/${p.pod}`, p]),
  );
  if (pods.size === 0) return families;
  const covered = coveredByTargets(targets);
  const neighbours = [...pods.values()].filter(p => !covered(p));
  const neighbourTokens =
    neighbours.length > 0
      ? await tokensOf({
          pod: anyOf(neighbours.map(p => p.pod)),
          namespace: anyOf(neighbours.map(p => p.namespace)),
        })
      : undefined;
  const tokens = mergedTokens(targetTokens, neighbourTokens);
  if (tokens.ok) {
    const series = tokens.data.filter(s =>
      pods.has(`${s.labels.namespace}/${s.labels.pod}`),
    );
    const counts = new Map(
      series
        .filter(s => s.labels[PLACEMENT] === SAMPLES)
        .map(s => [`${s.labels.namespace}/${s.labels.pod}`, pointsOf(s)]),
    );
    families.sharedTokens = {
      ...tokens,
      data: series
        .filter(s => !s.labels[PLACEMENT])
        .map(s => {
          const vllmSamples = counts.get(
            `${s.labels.namespace}/${s.labels.pod}`,
          );
          return {
            namespace: s.labels.namespace ?? '',
            pod: s.labels.pod ?? '',
            points: pointsOf(s),
            ...(vllmSamples ? { samples: vllmSamples } : {}),
          };
        }),
    };
  } else families.sharedTokens = tokens;
  return families;
}

/** The targets' tokens and their neighbours' as one answer: the first failure if either failed. */
function mergedTokens(
  targets: QueryResult<RangeSeries[]>,
  neighbours: QueryResult<RangeSeries[]> | undefined,
): QueryResult<RangeSeries[]> {
  if (!targets.ok || !neighbours) return targets;
  if (!neighbours.ok) return neighbours;
  const warnings = [
    ...(targets.warnings ?? []),
    ...(neighbours.warnings ?? []),
  ];
  return {
    ok: true,
    data: [...targets.data, ...neighbours.data],
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
