import {
  AttributedValue,
  SharingTier,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  deploymentOfPod,
  DeviceSample,
  PodSample,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { MIB } from '../metrics/metricNames';
import { QueryResult } from '../metrics/PrometheusClient';
import type { Interval } from './accrual';
import { AttributionWindow, covered, stepsInWindow } from './coverage';
import { sharedByService, sharedFigures } from './sharedFigures';
import { SampleGrid, spanFigure } from './spanUsage';
import { StepSamples } from './stepSamples';

/** What attribution needs to know of a service. */
export interface AttributionTarget {
  id: string;
  namespace: string;
  deployment: string;
  modelName: string;
  tier: SharingTier;
  /**
   * GPU share one replica holds, as its cost counts it (`chargedSharePerReplica`: its reservation's GPU-equivalents /
   * replicas): a MIG instance's power is its GPU's x this share, a shared device's busy time is divided by it.
   */
  gpuSharePerReplica: number;
  /** Replicas the service runs (default 1): coverage is of every replica over the span. */
  replicas?: number;
  /**
   * When within the window it held its GPUs and ran (`heldSpan`, epoch milliseconds): usage, coverage and confidence
   * are measured over this time only. Absent: the whole window.
   */
  span?: readonly Interval[];
}

/** Usage of one service over a window, every figure with its method. */
export interface Attribution {
  /** Series (GPUs or MIG instances as seen by the service's pods) found. */
  seriesCount: number;
  /** Utilisation of what the service holds, 0 to 1. */
  utilisation?: AttributedValue;
  engineActive?: AttributedValue;
  memoryUsedBytes?: AttributedValue;
  peakMemoryBytes?: number;
  /** Framebuffer of the service's GPUs or MIG instances (FB_USED + FB_FREE), bytes; dedicated and MIG only. */
  deviceMemoryBytes?: number;
  powerWatts?: AttributedValue;
  xid?: { errorSamples: number; lastCode?: number };
  /** Highest utilisation of the last 30 minutes, 0 to 1 (dedicated and MIG only). */
  recentPeakUtilisation?: number;
  generatedTokens?: number;
  promptTokens?: number;
  /** Share of the tokens generated on the service's devices (1 when not shared). */
  shareOfDevice?: number;
  running?: number;
  waiting?: number;
  kvCacheUsage?: number;
  latency?: { p50Seconds?: number; p95Seconds?: number; p99Seconds?: number };
  /**
   * Requests the service's pods ran at once (`vllm:num_requests_running`) while serving: each pod's gauge averaged
   * over the window's steps at which it ran any, then the mean of its pods. Absent when no pod ran a request or none
   * reports the gauge.
   */
  runningWhileServing?: number;
  /** Share of the window (0 to 1) in which the service's pods had DCGM samples; absent when not measured. */
  coverage?: number;
  /** Shared tiers: the device busy time attributed to the service's pods, GPU-seconds. */
  busyGpuSeconds?: number;
  /**
   * Shared tiers: the part of `busyGpuSeconds` above the share the service held (a pod using more than its 1/R of an
   * MPS GPU while its neighbours were idle), GPU-seconds: not in its usage cost (capped at its allocation).
   */
  aboveShareGpuSeconds?: number;
  /** Shared tiers: utilisation at each step of the window, as attributed (epoch milliseconds). */
  utilisationSeries?: Array<{ timestamp: number; value: number }>;
  /**
   * MIG: series of the service's pods without a MIG instance id, left out (`isMigParentSeries`): the parent GPU's,
   * which dcgm-exporter before 4.6.0-4.8.3 labels with the pods of MIG devices allocated through DRA.
   */
  migParentSeries?: number;
  /**
   * MIG, when some series were left out (`migParentSeries`): the service's pods seen in the window (`pods`), and those
   * with a MIG instance's series (`measured`, named; the figures are theirs only). The others' nodes
   * (`unmeasuredHostnames`) run an exporter that labels only the parent GPU.
   */
  migPods?: {
    pods: number;
    measured: string[];
    unmeasuredHostnames: string[];
  };
}

/**
 * Whether a series of a MIG service's pod is its parent GPU's rather than its MIG instance's: it has no MIG instance
 * id (`GPU_I_ID`). The device plugin's MIG devices label only the instance's series (dcgm-exporter maps the pod to
 * `<gpu>-<GPU_I_ID>`). Through DRA, dcgm-exporter before 4.6.0-4.8.3 keys a MIG device by its `parentUUID`
 * (`internal/pkg/transformation/kubernetes.go` `toDeviceToPodsDRA`, `dra.go` `GetDeviceInfo`) while an instance's
 * series is looked up by `<gpu>-<GPU_I_ID>`, so the pod's labels (with `dra_mig_profile`, `dra_mig_device_uuid`) land
 * on a copy of the parent GPU's series per pod, with the whole GPU's values, and the instance's series stay
 * unlabelled; 4.6.0-4.8.3 (NVIDIA/dcgm-exporter#664) labels the instance's series as the device plugin's are. The
 * whole GPU's figures are never an instance's: such series are left out of a MIG service's figures.
 */
export function isMigParentSeries(
  tier: SharingTier,
  series: { migInstance?: string },
): boolean {
  return tier === 'mig' && !series.migInstance;
}

/**
 * A MIG service's power series: per pod, its MIG instances' (dcgm-exporter reports the whole GPU's power on each), else
 * its parent GPU's copy (`isMigParentSeries`), which holds the same figure. Either is the GPU's power, estimated as the
 * instance's by its share of the GPU; one pod never counts both.
 */
function migPower(
  list: DeviceSample[] | undefined,
): DeviceSample[] | undefined {
  if (!list) return undefined;
  const withInstance = new Set(
    list.filter(s => s.migInstance).map(s => `${s.namespace}/${s.pod}`),
  );
  const kept = list.filter(
    s => s.migInstance || !withInstance.has(`${s.namespace}/${s.pod}`),
  );
  return kept.length > 0 ? kept : undefined;
}

/** The pods of a MIG service's DCGM series, and which have a MIG instance's series (`Attribution.migPods`). */
function migPods(
  families: DeviceSample[][],
): NonNullable<Attribution['migPods']> {
  const pods = new Map<string, { measured: boolean; hostname: string }>();
  for (const s of families.flat()) {
    const pod = pods.get(s.pod) ?? { measured: false, hostname: s.hostname };
    if (s.migInstance) pod.measured = true;
    pods.set(s.pod, pod);
  }
  const entries = [...pods.entries()].sort(([a], [b]) => a.localeCompare(b));
  return {
    pods: pods.size,
    measured: entries.filter(([, p]) => p.measured).map(([name]) => name),
    unmeasuredHostnames: [
      ...new Set(
        entries.filter(([, p]) => !p.measured).map(([, p]) => p.hostname),
      ),
    ].sort(),
  };
}

export {
  confidenceAt,
  coverageNote,
  FULL_COVERAGE,
  SHORT_COVERAGE,
  stepsInWindow,
} from './coverage';
export type { AttributionWindow } from './coverage';

const key = (namespace: string, name: string) => `${namespace}/${name}`;
const isShared = (tier: SharingTier) =>
  tier === 'mps' || tier === 'time-sliced';

function data<T>(
  family: { ok: true; data: T[] } | { ok: false } | undefined,
): T[] {
  return family && family.ok ? family.data : [];
}

function finite(value: number): boolean {
  return Number.isFinite(value);
}

/** Mean of values weighted by the time (steps) their series existed; a weight of 0 or less counts as 1. */
function weightedMean(
  values: Array<{ value: number; weight: number }>,
): number | undefined {
  const usable = values.filter(v => finite(v.value) && finite(v.weight));
  if (usable.length === 0) return undefined;
  const total = usable.reduce((t, v) => t + Math.max(v.weight, 0), 0);
  if (total <= 0) return mean(usable.map(v => v.value));
  return (
    usable.reduce((t, v) => t + v.value * Math.max(v.weight, 0), 0) / total
  );
}

const seriesKey = (s: DeviceSample) =>
  `${s.namespace}/${s.pod}@${s.hostname}/${s.gpu}/${s.migInstance ?? ''}`;

function mean(values: number[]): number | undefined {
  const usable = values.filter(finite);
  return usable.length === 0
    ? undefined
    : usable.reduce((a, b) => a + b, 0) / usable.length;
}

function sum(values: number[]): number {
  return values.filter(finite).reduce((a, b) => a + b, 0);
}

/** Groups device samples by the service (namespace + Deployment) of their pod. */
function byService(samples: DeviceSample[]): Map<string, DeviceSample[]> {
  const groups = new Map<string, DeviceSample[]>();
  for (const sample of samples) {
    const k = key(sample.namespace, deploymentOfPod(sample.pod));
    const list = groups.get(k);
    if (list) list.push(sample);
    else groups.set(k, [sample]);
  }
  return groups;
}

function byModel(samples: PodSample[]): Map<string, PodSample[]> {
  const groups = new Map<string, PodSample[]>();
  for (const sample of samples) {
    const k = key(sample.namespace, sample.modelName);
    const list = groups.get(k);
    if (list) list.push(sample);
    else groups.set(k, [sample]);
  }
  return groups;
}

/**
 * Attributes a window's measurements to services, per tier:
 *
 * - dedicated: the mean of the DCGM GPU utilisation of the service's pods' GPUs (`measured`);
 * - MIG: the mean of DCGM_FI_PROF_GR_ENGINE_ACTIVE of the service's MIG instances (GPU_UTIL when absent)
 *   (`measured-mig-instance`);
 * - MPS and time-sliced: each device's busy time is split step by step among the pods present at each step
 *   (`sharedDevices.ts`: by tokens, evenly, or per-pod values kept), and the service's busy time is divided by the share
 *   it holds (1/R per replica) over the steps its pods were present, capped at 1. Memory is the device's framebuffer
 *   use split evenly between its pods (vLLM preallocates its fraction).
 */
export function attributeUsage(
  targets: AttributionTarget[],
  metrics: WindowMetrics,
  window?: AttributionWindow,
  stepSamples?: { samples: QueryResult<StepSamples[]>; grid: SampleGrid },
): Map<string, Attribution> {
  const sampled = new Map<string, StepSamples[]>();
  if (stepSamples?.samples.ok) {
    for (const s of stepSamples.samples.data) {
      const k = key(s.namespace, deploymentOfPod(s.pod));
      const list = sampled.get(k);
      if (list) list.push(s);
      else sampled.set(k, [s]);
    }
  }
  // Time each series existed, in steps: every mean below is weighted by it (a pod replaced an hour before the end
  // weighs an hour, not half). A series without a count (family not asked or failed) weighs one step.
  const steps = new Map<string, number>();
  for (const s of data(metrics.seriesSteps)) steps.set(seriesKey(s), s.value);
  const weight = (s: DeviceSample) => steps.get(seriesKey(s)) ?? 1;
  const weighted = (list: DeviceSample[], f: (v: number) => number) =>
    weightedMean(list.map(s => ({ value: f(s.value), weight: weight(s) })));
  const windowSteps = window ? stepsInWindow(window) : undefined;
  const serviceSteps = new Map<string, number>();
  for (const s of data(metrics.serviceSteps)) {
    const k = key(s.namespace, s.deployment);
    serviceSteps.set(k, Math.max(serviceSteps.get(k) ?? 0, s.value));
  }
  const coverageKnown =
    windowSteps !== undefined && metrics.serviceSteps?.ok === true;
  const util = byService(data(metrics.util));
  const engine = byService(data(metrics.engine));
  const fbUsed = byService(data(metrics.fbUsed));
  const fbPeak = byService(data(metrics.fbUsedPeak));
  const fbFree = byService(data(metrics.fbFree));
  const power = byService(data(metrics.power));
  const xidSamples = byService(data(metrics.xidSamples));
  const xidLast = byService(data(metrics.xidLast));
  const recent = byService(data(metrics.recentPeakUtil));
  const generated = byModel(data(metrics.generated));
  const prompt = byModel(data(metrics.prompt));
  const running = byModel(data(metrics.running));
  const waiting = byModel(data(metrics.waiting));
  const kv = byModel(data(metrics.kvCache));
  const p50 = byModel(data(metrics.latencyP50));
  const p95 = byModel(data(metrics.latencyP95));
  const p99 = byModel(data(metrics.latencyP99));
  const concurrency = byModel(data(metrics.concurrency));

  const shared = sharedByService(metrics, window);
  const result = new Map<string, Attribution>();
  for (const target of targets) {
    const k = key(target.namespace, target.deployment);
    const m = key(target.namespace, target.modelName);
    // A MIG service's figures are its instances' only (`isMigParentSeries`).
    let migParentSeries = 0;
    const own = <T extends { migInstance?: string }>(
      groups: Map<string, T[]>,
    ): T[] | undefined => {
      const list = groups.get(k);
      if (!list || target.tier !== 'mig') return list;
      const kept = list.filter(s => !isMigParentSeries(target.tier, s));
      migParentSeries = Math.max(migParentSeries, list.length - kept.length);
      return kept.length > 0 ? kept : undefined;
    };
    const series = own(util) ?? [];
    const engineSeries = own(engine) ?? [];
    const used = own(fbUsed);
    const usedPeak = own(fbPeak);
    const free = own(fbFree);
    // Power is the GPU's, whichever series carries the pod: an instance's (dcgm-exporter reports the device's power on
    // each MIG instance) or, when only the parent GPU's carries it, the parent's (`migPower`).
    const watts = target.tier === 'mig' ? migPower(power.get(k)) : power.get(k);
    const xids = own(xidSamples);
    const xidCodes = own(xidLast);
    const peaks = own(recent);
    const sampledOwn = own(sampled) ?? [];
    const tokensOut = generated.get(m);
    // Unknown (not 0) when the count was not asked, failed or has no row for a service with series.
    const coveredSteps = serviceSteps.get(k);
    const coverage =
      coverageKnown &&
      coveredSteps !== undefined &&
      (series.length > 0 || engineSeries.length > 0)
        ? Math.min(1, coveredSteps / windowSteps!)
        : undefined;
    // A sum over the service's series (memory, power) averaged over the time it had samples: concurrent replicas
    // add up, a replaced pod counts for its lifetime.
    const covering = serviceSteps.get(k) ?? 0;
    const timeSum = (list: DeviceSample[]) =>
      covering > 0 && metrics.seriesSteps?.ok
        ? list
            .filter(s => finite(s.value))
            .reduce((t, s) => t + s.value * weight(s), 0) / covering
        : sum(list.map(s => s.value));
    const attribution: Attribution = {
      seriesCount: Math.max(series.length, engineSeries.length),
      ...(coverage !== undefined ? { coverage } : {}),
      ...(tokensOut
        ? { generatedTokens: sum(tokensOut.map(s => s.value)) }
        : {}),
      ...(prompt.get(m)
        ? { promptTokens: sum(prompt.get(m)!.map(s => s.value)) }
        : {}),
      ...(running.get(m)
        ? { running: sum(running.get(m)!.map(s => s.value)) }
        : {}),
      ...(waiting.get(m)
        ? { waiting: sum(waiting.get(m)!.map(s => s.value)) }
        : {}),
      ...(kv.get(m)
        ? { kvCacheUsage: mean(kv.get(m)!.map(s => s.value)) }
        : {}),
    };
    const quantiles = {
      p50Seconds: mean((p50.get(m) ?? []).map(s => s.value)),
      p95Seconds: mean((p95.get(m) ?? []).map(s => s.value)),
      p99Seconds: mean((p99.get(m) ?? []).map(s => s.value)),
    };
    const whileServing = mean((concurrency.get(m) ?? []).map(s => s.value));
    if (whileServing !== undefined)
      attribution.runningWhileServing = whileServing;
    if (Object.values(quantiles).some(v => v !== undefined)) {
      attribution.latency = Object.fromEntries(
        Object.entries(quantiles).filter(([, v]) => v !== undefined),
      );
    }
    if (migParentSeries > 0) {
      attribution.migParentSeries = migParentSeries;
      attribution.migPods = migPods(
        [util, engine, fbUsed].map(groups => groups.get(k) ?? []),
      );
    }
    if (xids) {
      const codes = (xidCodes ?? []).map(s => s.value).filter(v => v > 0);
      attribution.xid = {
        errorSamples: sum(xids.map(s => s.value)),
        ...(codes.length ? { lastCode: Math.max(...codes) } : {}),
      };
    }

    if (!isShared(target.tier)) {
      const mig = target.tier === 'mig';
      let engineMean = weighted(engineSeries, v => v);
      let utilMean = weighted(series, v => v / 100);
      let gpus = series.length;
      let figureCoverage = coverage;
      if (stepSamples && sampledOwn.length > 0) {
        // Over the time it held its GPUs, at the resolution of the samples (`spanUsage.ts`).
        const replicas = target.replicas ?? 1;
        const utilFigure = spanFigure(
          sampledOwn,
          'util',
          target.span,
          stepSamples.grid,
          replicas,
        );
        const engineFigure = spanFigure(
          sampledOwn,
          'engine',
          target.span,
          stepSamples.grid,
          replicas,
        );
        utilMean = utilFigure.value;
        engineMean = engineFigure.value;
        const chosen =
          mig && engineFigure.value !== undefined ? engineFigure : utilFigure;
        gpus = chosen.seriesPerPod * Math.max(1, replicas);
        figureCoverage = chosen.coverage;
        attribution.coverage = figureCoverage;
      }
      const value = mig ? engineMean ?? utilMean : utilMean;
      const method = mig ? 'measured-mig-instance' : 'measured';
      if (value !== undefined) {
        attribution.utilisation = covered(
          {
            value: Math.min(1, Math.max(0, value)),
            method,
            confidence: 'high',
            note: mig
              ? `DCGM ${
                  engineMean !== undefined
                    ? 'graphics engine activity'
                    : 'GPU utilisation'
                } of the service's MIG instance${
                  engineSeries.length > 1 ? 's' : ''
                }`
              : `DCGM GPU utilisation of the service's ${gpus} GPU${
                  gpus === 1 ? '' : 's'
                }`,
          },
          figureCoverage,
        );
      }
      if (engineMean !== undefined) {
        attribution.engineActive = covered(
          { value: engineMean, method, confidence: 'high' },
          figureCoverage,
        );
      }
      if (used) {
        attribution.memoryUsedBytes = covered(
          { value: timeSum(used) * MIB, method, confidence: 'high' },
          coverage,
        );
        attribution.peakMemoryBytes =
          sum((usedPeak ?? used).map(s => s.value)) * MIB;
        if (free) {
          attribution.deviceMemoryBytes = (timeSum(used) + timeSum(free)) * MIB;
        }
      }
      if (watts) {
        attribution.powerWatts = mig
          ? {
              value: timeSum(watts) * target.gpuSharePerReplica,
              method: 'nominal',
              confidence: 'low',
              note: "the GPU's power x the instance's share of the GPU, as its cost counts it",
            }
          : covered(
              { value: timeSum(watts), method, confidence: 'high' },
              coverage,
            );
      }
      if (peaks) {
        attribution.recentPeakUtilisation =
          Math.max(...peaks.map(s => s.value)) / 100;
      }
      if (attribution.seriesCount > 0) {
        attribution.shareOfDevice = 1;
      }
      result.set(target.id, attribution);
      continue;
    }

    const mine = shared.get(k);
    if (mine) {
      Object.assign(
        attribution,
        sharedFigures({
          target,
          pods: mine,
          window,
          memory: fbUsed.get(k),
          peakMemory: fbPeak.get(k),
          power: power.get(k),
          seriesCount: attribution.seriesCount,
        }),
      );
    }
    result.set(target.id, attribution);
  }
  return result;
}
