import { MetricsStatus } from '@gpu-platform/backstage-plugin-gpu-common';
import { serviceObjectNames } from '@gpu-platform/backstage-plugin-gpu-node';
import {
  collectWindowMetrics,
  FAMILY_METRIC,
  MetricScope,
  MetricTarget,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { PrometheusClient } from '../metrics/PrometheusClient';
import { DCGM } from '../metrics/metricNames';
import { ServiceAllocation } from './AllocationReader';
import { Attribution, attributeUsage, AttributionTarget } from './attribution';
import { heldSpan } from './heldSpan';
import { metricsStatus, NOT_CONFIGURED } from './metricsStatus';
import { endAlignedGrid } from './spanUsage';
import { collectStepSamples, sampleInterval, stepCounts } from './stepSamples';
import { serviceSlice } from './serviceSlice';
import { UsageContext } from './usageContext';
import { MEASUREMENT_TTL_MS } from './windowCache';

/** Above this many services, queries select every pod and filter in code instead of a regex of names. */
export const REGEX_SCOPE_LIMIT = 50;

/** Families cost needs (the month-to-date measurement). */
export const COST_FAMILIES: Array<keyof WindowMetrics> = [
  'util',
  'engine',
  'generated',
  'seriesSteps',
  'serviceSteps',
  'sharedUtil',
  'sharedPlacement',
  'sharedTokens',
];

/** Families read from the step samples (`stepSamples.ts`) rather than asked of Prometheus. */
const FROM_STEP_SAMPLES: Array<keyof WindowMetrics> = [
  'seriesSteps',
  'serviceSteps',
];

/** A measurement of services over a range: status, per-service attribution, queries issued. */
export interface Measurement {
  status: MetricsStatus;
  usage: Map<string, Attribution>;
  metrics?: WindowMetrics;
}

export type UsageTarget = AttributionTarget & MetricTarget;

/**
 * The share of a GPU one replica of a service holds, as it is charged: its reservation's GPU-equivalents (the held
 * one, else its latest) / its replicas, the units its allocation cost counts (`allocationInRange`). Only a service
 * without any reservation falls back to its slice's weight in the pool's current layout (`Slice.gpuShare`), else 1.
 * Whatever is apportioned to one replica (a MIG instance's power from its GPU's, a shared device's busy time) takes
 * this share, so it is the same as the cost's: a MIG pool's layout weighing a profile differently today (e.g. 2/15 of
 * an A100 for a 1g.10gb) does not change the share a service holding 1/7 is charged for.
 */
export function chargedSharePerReplica(
  allocation: ServiceAllocation,
  slice: { gpuShare: number } | undefined,
): number {
  const { service, reservations } = allocation;
  const replicas = Math.max(1, service.request.replicas);
  const held =
    reservations.find(r => r.state === 'held') ??
    reservations[reservations.length - 1];
  if (held && held.gpuEquivalents > 0) return held.gpuEquivalents / replicas;
  return slice?.gpuShare ?? 1;
}

/** What attribution and the PromQL scope need to know about one service. */
export function usageTarget(
  context: UsageContext,
  allocation: ServiceAllocation,
  window?: { end: number; seconds: number },
): UsageTarget {
  const { service, reservations } = allocation;
  const slice = serviceSlice(context.platform, service);
  const replicas = Math.max(1, service.request.replicas);
  return {
    id: service.id,
    namespace: service.namespace,
    deployment: serviceObjectNames(service.request.name).deployment,
    modelName: service.request.name,
    tier: service.tier,
    shared: service.tier === 'mps' || service.tier === 'time-sliced',
    gpuSharePerReplica: chargedSharePerReplica(allocation, slice),
    replicas,
    // A dry run spends nothing and bills no usage: whatever runs under its name is measured over the whole window.
    ...(window && service.mode !== 'dry-run'
      ? {
          span: heldSpan(
            reservations,
            allocation.spending,
            (window.end - window.seconds) * 1000,
            window.end * 1000,
          ),
        }
      : {}),
  };
}

/**
 * A new client for one API request when Prometheus is configured: it counts its own queries, takes the process-wide
 * `concurrency.overall` slots with `concurrency.perRequest` as its fair share (more while no other request needs
 * them; see `QuerySlots`), and shares the circuit breaker and the request's deadline.
 */
export function prometheusClient(
  context: UsageContext,
): PrometheusClient | undefined {
  const { prometheus, fetchImpl, prometheusQueries } = context;
  return prometheus
    ? new PrometheusClient(prometheus, fetchImpl, {
        perRequest: prometheus.concurrency.perRequest,
        overall: prometheusQueries,
        breaker: context.prometheusBreaker,
        deadline: context.deadline,
      })
    : undefined;
}

/**
 * Measures and attributes the usage of services over a window ending at `end` (unix seconds). The same scope and
 * window asked again shortly after (e.g. `/usage` then `/cost`) reuses the measurement (see `windowCache.ts`).
 */
export async function measure(
  context: UsageContext,
  client: PrometheusClient | undefined,
  allocations: ServiceAllocation[],
  window: { end: number; seconds: number; step: number },
  only?: Array<keyof WindowMetrics>,
): Promise<Measurement> {
  if (!client || !context.prometheus) {
    return { status: NOT_CONFIGURED, usage: new Map() };
  }
  const targets = allocations.map(a => usageTarget(context, a, window));
  if (targets.length === 0) {
    return { status: { state: 'available' }, usage: new Map() };
  }
  const { prometheus } = context;
  const scope: MetricScope =
    targets.length > (context.regexScopeLimit ?? REGEX_SCOPE_LIMIT)
      ? { kind: 'all' }
      : { kind: 'services', targets };
  const run = async (): Promise<Measurement> => {
    const grid = endAlignedGrid(window.end, window.seconds, window.step);
    // The range query first: it takes longest, and the window's instant queries take the slots left.
    const stepSamples = collectStepSamples({
      client,
      scope,
      grid,
      labels: prometheus.labels,
    });
    const [metrics, samples] = await Promise.all([
      collectWindowMetrics({
        client,
        scope,
        end: window.end,
        windowSeconds: window.seconds,
        stepSeconds: window.step,
        labels: prometheus.labels,
        only: (
          only ?? (Object.keys(FAMILY_METRIC) as Array<keyof WindowMetrics>)
        ).filter(f => !FROM_STEP_SAMPLES.includes(f)),
        shared: targets.filter(t => t.shared),
      }),
      stepSamples,
    ]);
    // The step counts come from the step samples (one query fewer each); their failure is theirs.
    if (samples.ok) {
      const counts = stepCounts(samples.data);
      metrics.seriesSteps = { ...samples, data: counts.seriesSteps };
      metrics.serviceSteps = { ok: true, data: counts.serviceSteps };
    } else {
      metrics.seriesSteps = samples;
      metrics.serviceSteps = samples;
    }
    const status = metricsStatus(metrics);
    return {
      status,
      usage: attributeUsage(
        targets,
        metrics,
        { end: window.end, seconds: window.seconds, step: window.step },
        {
          samples,
          grid: {
            times: grid.times,
            step: grid.step,
            interval: samples.ok
              ? sampleInterval(samples.data, grid.step)
              : grid.step,
          },
        },
      ),
      metrics,
    };
  };
  if (!context.measurements) return run();
  const key = JSON.stringify({
    targets,
    seconds: window.seconds,
    step: window.step,
    only: only ? [...only].sort() : 'all',
  });
  // A complete answer holds for its step (the figures change at step granularity); one missing what Prometheus did
  // not answer in time, only for the cache's short TTL, so it is asked again soon.
  return context.measurements.get(key, window.end, run, measurement =>
    measurement.status.state === 'available' ||
    measurement.status.state === 'no-data'
      ? Math.max(MEASUREMENT_TTL_MS, window.step * 1000)
      : MEASUREMENT_TTL_MS,
  );
}

/** The status for one service: the global one, or `no-data` when Prometheus answered without its series. */
export function serviceStatus(
  measurement: Measurement,
  usage: Attribution | undefined,
): MetricsStatus {
  const { status } = measurement;
  if (status.state === 'unavailable' || status.state === 'not-configured')
    return status;
  if (usage?.migParentSeries && !usage.utilisation) {
    // Only the parent GPU's series carry the pods (`isMigParentSeries`): left out, so nothing is measured.
    return {
      state: 'partial',
      reason:
        "dcgm-exporter labels the parent GPU's series with this service's pods instead of its MIG instance's (MIG devices allocated through DRA, dcgm-exporter before 4.6.0-4.8.3): the whole GPU's figures are not the instance's, so utilisation is unknown and cost is the allocation only",
      missing: [
        DCGM.engineActive,
        ...(usage.memoryUsedBytes ? [] : [DCGM.fbUsed]),
      ],
    };
  }
  if (usage?.migParentSeries && usage.migPods?.measured.length) {
    // Some pods' instances are measured, others' only through the parent GPU's series (an exporter of each kind, e.g.
    // replicas on nodes running different dcgm-exporter versions): the figures are the measured pods' only.
    const { pods, measured, unmeasuredHostnames } = usage.migPods;
    const named =
      measured.length <= 3
        ? measured.join(', ')
        : `${measured.slice(0, 3).join(', ')} and ${measured.length - 3} more`;
    const others = pods - measured.length;
    const unmeasured =
      others === 1
        ? "the other pod instead of its MIG instance's"
        : `the other ${others} pods instead of their MIG instances'`;
    const one = measured.length === 1;
    const reason =
      `${measured.length} of ${pods} pods of this service are measured: ` +
      `dcgm-exporter on ${unmeasuredHostnames.join(
        ', ',
      )} labels the parent GPU's series with ${unmeasured} ` +
      "(MIG devices allocated through DRA, dcgm-exporter before 4.6.0-4.8.3), and the whole GPU's figures are not an " +
      `instance's; utilisation and memory are those of the MIG instance${
        one ? '' : 's'
      } of ${named} only, and cost ` +
      `is the allocation, its usage part from ${
        one ? 'that pod' : 'those pods'
      } only`;
    return {
      state: 'partial',
      reason:
        status.state === 'partial' && status.reason
          ? `${reason}; ${status.reason}`
          : reason,
      missing: [
        ...new Set([
          ...(status.state === 'partial' ? status.missing ?? [] : []),
          DCGM.engineActive,
          DCGM.fbUsed,
        ]),
      ],
    };
  }
  if (
    !usage ||
    (usage.seriesCount === 0 && usage.generatedTokens === undefined)
  ) {
    const noData =
      'Prometheus has no DCGM or vLLM series for this service in the window yet';
    // Keep what was wrong with the answers (e.g. a null result) next to "no data".
    return status.state === 'partial'
      ? {
          state: 'no-data',
          reason: `${noData}; ${status.reason}`,
          ...(status.missing ? { missing: status.missing } : {}),
        }
      : { state: 'no-data', reason: noData };
  }
  if (!usage.utilisation && status.state === 'available') {
    return {
      state: 'partial',
      reason:
        'No DCGM series for the service in the window: utilisation unknown',
      missing: ['DCGM_FI_DEV_GPU_UTIL'],
    };
  }
  return status;
}

/**
 * A service's status in a window it held no GPUs in (created after it, torn down before it): `no-data`, whatever
 * Prometheus said, so a deleted service never reads `available`.
 */
export function statusOfUnheld(
  status: MetricsStatus,
  heldInWindow: boolean,
  deleted: boolean,
): MetricsStatus {
  if (heldInWindow || status.state === 'not-configured') return status;
  return {
    state: 'no-data',
    reason: deleted
      ? 'The service was deleted and held no GPUs in the window'
      : 'The service held no GPUs in the window',
  };
}
