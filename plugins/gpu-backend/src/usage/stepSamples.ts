import {
  deploymentOfPod,
  DeviceSample,
  MetricScope,
  ServiceSample,
} from '../metrics/collectMetrics';
import { DCGM } from '../metrics/metricNames';
import { PrometheusClient, QueryResult } from '../metrics/PrometheusClient';
import { DcgmLabelNames } from '../metrics/PrometheusConfig';
import {
  anyOf,
  dcgmBy,
  dcgmOutputLabels,
  dcgmSeries,
  PodMatch,
  podsOfDeployments,
  windowRange,
} from '../metrics/promql';
import { StepGrid } from '../metrics/stepGrid';

/** Which DCGM figure a series is: GPU utilisation (percent) or graphics engine activity (0 to 1). */
export type SampledMetric = 'util' | 'engine';

/**
 * One DCGM series (a pod's GPU or MIG instance) at each step of a window: how many samples the exporter wrote in
 * the step, `(t - step, t]`, and their sum. The samples' own resolution, not the step's: a gap of two scrapes inside
 * a step is two samples fewer.
 */
export interface StepSamples {
  namespace: string;
  pod: string;
  hostname: string;
  gpu: string;
  migInstance?: string;
  metric: SampledMetric;
  counts: Map<number, number>;
  sums: Map<number, number>;
}

const STAT = 'gpu_usage_stat';

/**
 * One range query at the window's step: per DCGM series of the scope, `count_over_time` and `sum_over_time` of
 * `DCGM_FI_DEV_GPU_UTIL` and of `DCGM_FI_PROF_GR_ENGINE_ACTIVE` over each step, marked `gpu_usage_stat`.
 */
export function stepSamplesQuery(
  scope: MetricScope,
  stepSeconds: number,
  labels: DcgmLabelNames,
): string {
  const match: PodMatch =
    scope.kind === 'all'
      ? {}
      : {
          pod: podsOfDeployments(scope.targets.map(t => t.deployment)),
          namespace: anyOf(scope.targets.map(t => t.namespace)),
        };
  const by = dcgmBy(labels);
  const range = windowRange(stepSeconds);
  const part = (metric: string, fn: string, stat: string) =>
    `label_replace(avg ${by} (${dcgmSeries(
      metric,
      match,
      labels,
      sel => `${fn}(${sel}[${range}])`,
    )}),"${STAT}","${stat}","","")`;
  return [
    part(DCGM.gpuUtil, 'count_over_time', 'util_count'),
    part(DCGM.gpuUtil, 'sum_over_time', 'util_sum'),
    part(DCGM.engineActive, 'count_over_time', 'engine_count'),
    part(DCGM.engineActive, 'sum_over_time', 'engine_sum'),
  ].join(' or ');
}

/** Reads the services' DCGM samples step by step over `grid` (one range query). */
export async function collectStepSamples(options: {
  client: PrometheusClient;
  scope: MetricScope;
  grid: StepGrid;
  labels: DcgmLabelNames;
}): Promise<QueryResult<StepSamples[]>> {
  const { client, scope, grid, labels } = options;
  const answer = await client.queryRange(
    stepSamplesQuery(scope, grid.step, labels),
    grid.start,
    grid.end,
    grid.step,
  );
  if (!answer.ok) return answer;
  const out = dcgmOutputLabels(labels);
  const series = new Map<string, StepSamples>();
  for (const s of answer.data) {
    const stat = s.labels[STAT] ?? '';
    const [metric, kind] = stat.split('_') as [SampledMetric, string];
    if (metric !== 'util' && metric !== 'engine') continue;
    const migInstance = s.labels[out.migInstance];
    const entry: StepSamples = {
      namespace: s.labels[out.namespace] ?? '',
      pod: s.labels[out.pod] ?? '',
      hostname: s.labels[out.hostname] ?? '',
      gpu: s.labels[out.gpu] ?? '',
      ...(migInstance ? { migInstance } : {}),
      metric,
      counts: new Map(),
      sums: new Map(),
    };
    const key = `${metric}|${entry.namespace}/${entry.pod}@${entry.hostname}/${
      entry.gpu
    }/${migInstance ?? ''}`;
    const found = series.get(key) ?? entry;
    series.set(key, found);
    const target = kind === 'count' ? found.counts : found.sums;
    for (const [t, v] of s.points) {
      if (Number.isFinite(v)) target.set(t, v);
    }
  }
  return {
    ...answer,
    data: [...series.values()].filter(s => s.counts.size > 0),
  };
}

/**
 * Samples the exporter writes in a step of `step` seconds, from sample counts per step of each series, read from the
 * steps inside a series' runs (the steps before and after it sampled too, so a series' first and last steps, which
 * are partly sampled, are left out): the most common count, or, when the next most common is one above and at least
 * a tenth as common, or one below and more than half as common (an interval that does not divide the step: 600 s
 * samples in 900 s steps alternate 1 and 2), their mean weighted by how often each occurs; missed scrapes inside a
 * run move neither, even in a run of a few steps (2 of 17 hourly steps one sample short read 12 per step, not 11.9). The highest over
 * series; where no series has such a step, the most samples one step had. At least one.
 */
export function samplesPerStep(
  series: Iterable<ReadonlyMap<number, number>>,
  step: number,
): number {
  let best = 0;
  let most = 0;
  for (const counts of series) {
    const frequency = new Map<number, number>();
    for (const [t, count] of counts) {
      most = Math.max(most, count);
      if (count <= 0) continue;
      if ((counts.get(t - step) ?? 0) > 0 && (counts.get(t + step) ?? 0) > 0)
        frequency.set(count, (frequency.get(count) ?? 0) + 1);
    }
    const ranked = [...frequency].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
    if (ranked.length === 0) continue;
    const [[top, topSeen], next] = ranked;
    // A count one above the most common comes only from an interval that does not divide the step. One below is
    // also what a missed scrape gives: it counts only when more than half as common as the most common (such an
    // interval gives that while the higher count is under 2/3 of the steps; above, the error is under 1/3 sample).
    const alternates =
      next &&
      (next[0] === top + 1
        ? next[1] >= topSeen / 10
        : next[0] === top - 1 && next[1] * 2 > topSeen);
    const estimate = alternates
      ? (top * topSeen + next[0] * next[1]) / (topSeen + next[1])
      : top;
    best = Math.max(best, estimate);
  }
  return Math.max(1, best > 0 ? best : most);
}

/** The exporter's sample interval, seconds, as seen in `samples` over steps of `step` seconds (`samplesPerStep`). */
export function sampleInterval(samples: StepSamples[], step: number): number {
  return (
    step /
    samplesPerStep(
      samples.map(s => s.counts),
      step,
    )
  );
}

/**
 * The step counts of the window metrics (`seriesSteps`, `serviceSteps`) from the step samples, so the window needs
 * no query of its own for them: per series, the steps it had samples at (GPU_UTIL, or ENGINE_ACTIVE where a series
 * has no GPU_UTIL); per service (namespace + Deployment), the steps any of its series had samples at.
 */
export function stepCounts(samples: StepSamples[]): {
  seriesSteps: DeviceSample[];
  serviceSteps: ServiceSample[];
} {
  const bySeries = new Map<string, { sample: StepSamples; steps: number }>();
  const byService = new Map<
    string,
    { namespace: string; deployment: string; steps: Set<number> }
  >();
  for (const s of samples) {
    const sampledSteps: number[] = [];
    s.counts.forEach((n, t) => {
      if (n > 0) sampledSteps.push(t);
    });
    const k = `${s.namespace}/${s.pod}@${s.hostname}/${s.gpu}/${
      s.migInstance ?? ''
    }`;
    const seen = bySeries.get(k);
    if (!seen || (seen.sample.metric === 'engine' && s.metric === 'util'))
      bySeries.set(k, { sample: s, steps: sampledSteps.length });
    const deployment = deploymentOfPod(s.pod);
    const service = `${s.namespace}/${deployment}`;
    const entry = byService.get(service) ?? {
      namespace: s.namespace,
      deployment,
      steps: new Set<number>(),
    };
    for (const t of sampledSteps) entry.steps.add(t);
    byService.set(service, entry);
  }
  return {
    seriesSteps: [...bySeries.values()].map(({ sample, steps }) => ({
      namespace: sample.namespace,
      pod: sample.pod,
      hostname: sample.hostname,
      gpu: sample.gpu,
      ...(sample.migInstance ? { migInstance: sample.migInstance } : {}),
      value: steps,
    })),
    serviceSteps: [...byService.values()].map(s => ({
      namespace: s.namespace,
      deployment: s.deployment,
      value: s.steps.size,
    })),
  };
}
