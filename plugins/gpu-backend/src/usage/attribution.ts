import {
  AttributedValue,
  Confidence,
  SharingTier,
} from '@internal/backstage-plugin-gpu-common';
import {
  deploymentOfPod,
  DeviceSample,
  PodSample,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { MIB } from '../metrics/metricNames';

/** What attribution needs to know of a service. */
export interface AttributionTarget {
  id: string;
  namespace: string;
  deployment: string;
  modelName: string;
  tier: SharingTier;
  /** GPU share of one replica (N, compute slices / 7, or 1/R). */
  gpuSharePerReplica: number;
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
  /** Share of the window (0 to 1) in which the service's pods had DCGM samples; absent when not measured. */
  coverage?: number;
}

/** The window measured: its length and the step its coverage is counted in, seconds. */
export interface AttributionWindow {
  /** Unix seconds. */
  end: number;
  seconds: number;
  step: number;
}

/** Step points of a window ending at `end`: the multiples of `step` in (end - seconds, end], at least one. */
export function stepsInWindow(window: AttributionWindow): number {
  const { end, seconds, step } = window;
  return Math.max(
    1,
    Math.floor(end / step) - Math.floor((end - seconds) / step),
  );
}

/** Coverage from which a figure keeps its confidence; below it drops one level. */
export const FULL_COVERAGE = 0.9;
/** Coverage below which a figure is `low` confidence whatever its method. */
export const SHORT_COVERAGE = 0.5;

/** A figure's confidence given the share of the window it was measured over. */
export function confidenceAt(
  confidence: Confidence,
  coverage: number | undefined,
): Confidence {
  if (coverage === undefined || coverage >= FULL_COVERAGE) return confidence;
  if (coverage < SHORT_COVERAGE) return 'low';
  return confidence === 'high' ? 'medium' : 'low';
}

/** `measured over 50% of the window`, for notes. */
export function coverageNote(coverage: number): string {
  return `measured over ${Math.round(coverage * 100)}% of the window`;
}

/** Adds coverage to a figure: lowers its confidence when short and says so in its note. */
function covered(
  value: AttributedValue,
  coverage: number | undefined,
): AttributedValue {
  if (coverage === undefined) return value;
  const short = coverage < FULL_COVERAGE;
  return {
    ...value,
    confidence: confidenceAt(value.confidence, coverage),
    coverage,
    ...(short
      ? {
          note: value.note
            ? `${value.note}; ${coverageNote(coverage)}`
            : coverageNote(coverage),
        }
      : {}),
  };
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;
const deviceKey = (s: DeviceSample) => `${s.hostname}/${s.gpu}`;
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

function byPod<T extends { namespace: string; pod: string }>(
  samples: T[],
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const sample of samples) {
    const k = key(sample.namespace, sample.pod);
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

/** The pods seen on each shared device, with the device's average utilisation (0-100). */
interface Device {
  utilisation: number;
  pods: Set<string>;
}

function devices(
  samples: DeviceSample[],
  weight: (s: DeviceSample) => number,
): Map<string, Device> {
  const grouped = new Map<string, DeviceSample[]>();
  for (const sample of samples) {
    if (sample.migInstance) continue;
    const list = grouped.get(deviceKey(sample));
    if (list) list.push(sample);
    else grouped.set(deviceKey(sample), [sample]);
  }
  const result = new Map<string, Device>();
  for (const [k, list] of grouped) {
    result.set(k, {
      utilisation:
        weightedMean(list.map(s => ({ value: s.value, weight: weight(s) }))) ??
        0,
      pods: new Set(list.map(s => key(s.namespace, s.pod))),
    });
  }
  return result;
}

/**
 * Attributes a window's measurements to services, per tier:
 *
 * - dedicated: the mean of the DCGM GPU utilisation of the service's pods' GPUs (`measured`);
 * - MIG: the mean of DCGM_FI_PROF_GR_ENGINE_ACTIVE of the service's MIG instances (GPU_UTIL when absent)
 *   (`measured-mig-instance`);
 * - MPS and time-sliced: DCGM reports the whole device to every sharing pod, so each device's mean utilisation is
 *   split between the pods on it by their share of the generated tokens (`apportioned-by-tokens`; evenly when no
 *   pod generated any), and the service's part is divided by the share it holds (1/R per replica), capped at 1.
 *   Memory is the device's framebuffer use split evenly between its pods (vLLM preallocates its fraction).
 */
export function attributeUsage(
  targets: AttributionTarget[],
  metrics: WindowMetrics,
  window?: AttributionWindow,
): Map<string, Attribution> {
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

  const sharedDevices = devices(
    metrics.neighbourUtil?.ok ? metrics.neighbourUtil.data : data(metrics.util),
    weight,
  );
  const podTokens = new Map<string, number>();
  for (const [k, list] of byPod(
    metrics.neighbourGenerated?.ok
      ? metrics.neighbourGenerated.data
      : data(metrics.generated),
  )) {
    podTokens.set(k, sum(list.map(s => s.value)));
  }

  const result = new Map<string, Attribution>();
  for (const target of targets) {
    const k = key(target.namespace, target.deployment);
    const m = key(target.namespace, target.modelName);
    const series = util.get(k) ?? [];
    const engineSeries = engine.get(k) ?? [];
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
    if (Object.values(quantiles).some(v => v !== undefined)) {
      attribution.latency = Object.fromEntries(
        Object.entries(quantiles).filter(([, v]) => v !== undefined),
      );
    }
    const xids = xidSamples.get(k);
    if (xids) {
      const codes = (xidLast.get(k) ?? []).map(s => s.value).filter(v => v > 0);
      attribution.xid = {
        errorSamples: sum(xids.map(s => s.value)),
        ...(codes.length ? { lastCode: Math.max(...codes) } : {}),
      };
    }

    if (!isShared(target.tier)) {
      const mig = target.tier === 'mig';
      const engineMean = weighted(engineSeries, v => v);
      const utilMean = weighted(series, v => v / 100);
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
              : `DCGM GPU utilisation of the service's ${series.length} GPU${
                  series.length === 1 ? '' : 's'
                }`,
          },
          coverage,
        );
      }
      if (engineMean !== undefined) {
        attribution.engineActive = covered(
          { value: engineMean, method, confidence: 'high' },
          coverage,
        );
      }
      const used = fbUsed.get(k);
      if (used) {
        attribution.memoryUsedBytes = covered(
          { value: timeSum(used) * MIB, method, confidence: 'high' },
          coverage,
        );
        attribution.peakMemoryBytes =
          sum((fbPeak.get(k) ?? used).map(s => s.value)) * MIB;
        const free = fbFree.get(k);
        if (free) {
          attribution.deviceMemoryBytes = (timeSum(used) + timeSum(free)) * MIB;
        }
      }
      const watts = power.get(k);
      if (watts) {
        attribution.powerWatts = mig
          ? {
              value: timeSum(watts) * target.gpuSharePerReplica,
              method: 'nominal',
              confidence: 'low',
              note: "the GPU's power x the instance's share of compute slices",
            }
          : covered(
              { value: timeSum(watts), method, confidence: 'high' },
              coverage,
            );
      }
      const peaks = recent.get(k);
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

    // Shared tiers: split each device's utilisation by tokens.
    let attributedDevice = 0;
    let held = 0;
    let evenly = false;
    let memory = 0;
    let peakMemory = 0;
    let watts = 0;
    let neighbours = 0;
    let myTokens = 0;
    let deviceTokensTotal = 0;
    const seen = new Set<string>();
    for (const sample of series) {
      const podKey = key(sample.namespace, sample.pod);
      const dKey = deviceKey(sample);
      if (seen.has(`${podKey}@${dKey}`)) continue;
      seen.add(`${podKey}@${dKey}`);
      const device = sharedDevices.get(dKey) ?? {
        utilisation: sample.value,
        pods: new Set([podKey]),
      };
      const pods = [...device.pods];
      const deviceTokens = sum(pods.map(p => podTokens.get(p) ?? 0));
      const mine = podTokens.get(podKey) ?? 0;
      const share = deviceTokens > 0 ? mine / deviceTokens : 1 / pods.length;
      evenly ||= deviceTokens === 0;
      myTokens += mine;
      deviceTokensTotal += deviceTokens;
      neighbours = Math.max(neighbours, pods.length - 1);
      // Weighted by the time the pod existed: a replaced pod counts for its lifetime only.
      const w = Math.max(weight(sample), 0) || 1;
      attributedDevice += (device.utilisation / 100) * share * w;
      held += target.gpuSharePerReplica * w;
      const used = (fbUsed.get(k) ?? []).find(
        s => s.pod === sample.pod && deviceKey(s) === dKey,
      );
      const peak = (fbPeak.get(k) ?? []).find(
        s => s.pod === sample.pod && deviceKey(s) === dKey,
      );
      const pw = (power.get(k) ?? []).find(
        s => s.pod === sample.pod && deviceKey(s) === dKey,
      );
      memory += (used?.value ?? 0) / pods.length;
      peakMemory += (peak?.value ?? used?.value ?? 0) / pods.length;
      watts += (pw?.value ?? 0) * share;
    }
    if (held > 0) {
      const method = evenly ? 'apportioned-evenly' : 'apportioned-by-tokens';
      attribution.utilisation = covered(
        {
          value: Math.min(1, attributedDevice / held),
          method,
          confidence: evenly ? 'low' : 'medium',
          note: `${
            target.tier === 'mps' ? 'MPS' : 'time-sliced'
          } GPU shared with ${neighbours} other pod${
            neighbours === 1 ? '' : 's'
          }: DCGM reports the whole device to each, so its utilisation is split ${
            evenly
              ? 'evenly (no tokens generated)'
              : 'by share of generated tokens'
          }`,
        },
        coverage,
      );
      attribution.shareOfDevice =
        deviceTokensTotal > 0 ? myTokens / deviceTokensTotal : undefined;
      if (fbUsed.get(k)) {
        attribution.memoryUsedBytes = {
          value: memory * MIB,
          method: 'apportioned-evenly',
          confidence: 'low',
          note: "the device's memory use split evenly between the pods sharing it",
        };
        attribution.peakMemoryBytes = peakMemory * MIB;
      }
      if (power.get(k)) {
        attribution.powerWatts = {
          value: watts,
          method,
          confidence: evenly ? 'low' : 'medium',
        };
      }
    }
    result.set(target.id, attribution);
  }
  return result;
}
