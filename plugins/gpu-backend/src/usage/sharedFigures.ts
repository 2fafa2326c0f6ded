import { AttributedValue } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  deploymentOfPod,
  DeviceSample,
  WindowMetrics,
} from '../metrics/collectMetrics';
import { MIB } from '../metrics/metricNames';
import { stepGrid } from '../metrics/stepGrid';
import type { Attribution, AttributionTarget } from './attribution';
import { AttributionWindow, covered } from './coverage';
import { stepWeight } from './heldSpan';
import {
  attributeSharedSteps,
  SharedPodUsage,
  StepSplit,
} from './sharedDevices';

/**
 * The step-by-step attribution of the shared GPUs in `metrics`, per service (namespace + Deployment of each pod);
 * empty when the shared families were not measured or failed (shared-tier utilisation is then unknown).
 */
export function sharedByService(
  metrics: WindowMetrics,
  window: AttributionWindow | undefined,
): Map<string, SharedPodUsage[]> {
  const byService = new Map<string, SharedPodUsage[]>();
  if (!window || !metrics.sharedUtil?.ok) return byService;
  const { pods } = attributeSharedSteps({
    steps: stepGrid(window.end, window.seconds, window.step).times,
    util: metrics.sharedUtil.data,
    placement: metrics.sharedPlacement?.ok ? metrics.sharedPlacement.data : [],
    tokens: metrics.sharedTokens?.ok ? metrics.sharedTokens.data : [],
  });
  for (const pod of pods) {
    const k = `${pod.namespace}/${deploymentOfPod(pod.pod)}`;
    const list = byService.get(k);
    if (list) list.push(pod);
    else byService.set(k, [pod]);
  }
  return byService;
}

const METHOD: Record<StepSplit, AttributedValue['method']> = {
  'per-pod': 'measured',
  tokens: 'apportioned-by-tokens',
  even: 'apportioned-evenly',
};
const CONFIDENCE: Record<StepSplit, AttributedValue['confidence']> = {
  'per-pod': 'high',
  tokens: 'medium',
  even: 'low',
};
const HOW: Record<StepSplit, string> = {
  'per-pod':
    "the exporter reports each pod's own utilisation (per-pod accounting), used as it is",
  tokens:
    'DCGM reports the whole device, so its busy time is split step by step among the pods present by their share of generated tokens',
  even: 'DCGM reports the whole device, so its busy time is split step by step evenly among the pods present (a pod without token series, or no tokens generated)',
};
const SHORT: Record<StepSplit, string> = {
  'per-pod': 'per-pod values',
  tokens: 'split by tokens',
  even: 'split evenly',
};

const total = (pods: SharedPodUsage[], f: (p: SharedPodUsage) => number) =>
  pods.reduce((t, p) => t + f(p), 0);

/** The note of a shared-tier figure: the tier, the neighbours, how it was split, and any other split or one-pod labelling. */
function note(
  target: AttributionTarget,
  pods: SharedPodUsage[],
  split: StepSplit,
  splits: Record<StepSplit, number>,
): string {
  const neighbours = Math.max(...pods.map(p => p.neighbours));
  const all = splits.tokens + splits.even + splits['per-pod'];
  const others = (Object.keys(splits) as StepSplit[])
    .filter(s => s !== split && splits[s] > 0)
    .map(s => `${SHORT[s]} at ${splits[s]} of ${all} steps`);
  const onePod = total(pods, p => p.onePodSteps);
  const unknownTokens = total(pods, p => p.unknownTokenSteps);
  return [
    `${
      target.tier === 'mps' ? 'MPS' : 'time-sliced'
    } GPU shared with ${neighbours} other pod${neighbours === 1 ? '' : 's'}: ${
      HOW[split]
    }`,
    ...others,
    ...(onePod > 0
      ? [
          `the exporter labelled one pod of the GPU at ${onePod} steps: its value is read as the device's and split with the pods kube-state-metrics places on the node`,
        ]
      : []),
    ...(unknownTokens > 0
      ? [
          `tokens unknown at ${unknownTokens} steps (vLLM scrapes missed): split by the time each pod was present there, as without tokens`,
        ]
      : []),
  ].join('; ');
}

/** The service's utilisation at each step it was present: its pods' busy time / (share x pods present), capped at 1. */
function stepUtilisation(
  pods: SharedPodUsage[],
  share: number,
): Array<{ timestamp: number; value: number }> {
  const at = new Map<number, { busy: number; pods: number }>();
  for (const pod of pods) {
    for (const [t, busy] of pod.busyAt) {
      const step = at.get(t) ?? { busy: 0, pods: 0 };
      step.busy += busy;
      step.pods += 1;
      at.set(t, step);
    }
  }
  return [...at.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, step]) => ({
      timestamp: t * 1000,
      value: share > 0 ? Math.min(1, step.busy / (share * step.pods)) : 0,
    }));
}

/**
 * A shared-tier service's figures from its pods' step-by-step attribution, over the time it held its GPUs
 * (`target.span`; each step counts for the part of it inside the span): utilisation = busy time attributed / (share
 * held per replica x the time its pods were present), capped at 1; coverage = the time its pods were present /
 * (replicas x the span), so usage billed (utilisation x coverage) is busy time / (share held x span) and usage cost
 * is busy GPU-hours x the price. Busy time above the share held (a pod using more than 1/R of an MPS GPU) is
 * `aboveShareGpuSeconds`. The method is the split used at most of its steps.
 */
export function sharedFigures(options: {
  target: AttributionTarget;
  pods: SharedPodUsage[];
  window?: AttributionWindow;
  memory?: DeviceSample[];
  peakMemory?: DeviceSample[];
  power?: DeviceSample[];
  seriesCount: number;
}): Partial<Attribution> {
  const { target, pods, window, memory, peakMemory, power } = options;
  const step = window?.step ?? 1;
  const weight = (t: number) => (window ? stepWeight(target.span, t, step) : 1);
  const times = window
    ? stepGrid(window.end, window.seconds, window.step).times
    : [];
  const spanSteps = times.reduce((t, time) => t + weight(time), 0);
  const inSpan = (pod: SharedPodUsage) =>
    [...pod.busyAt.keys()].filter(t => weight(t) > 0);
  // A step partly inside the span counts the pod's presence there up to that part (all of it when the pod was
  // there only then), and its busy time in the same proportion.
  const inside = (p: SharedPodUsage, time: number) => {
    const part = p.presentAt.get(time) ?? 1;
    const w = weight(time);
    if (w >= 1) return 1;
    return part > 0 ? Math.min(part, w) / part : 0;
  };
  const busy = total(pods, p =>
    [...p.busyAt].reduce((t, [time, b]) => t + inside(p, time) * b, 0),
  );
  const present = total(pods, p =>
    [...p.presentAt].reduce(
      (t, [time, part]) =>
        t + (weight(time) >= 1 ? part : Math.min(part, weight(time))),
      0,
    ),
  );
  const held = target.gpuSharePerReplica * present;
  // The window's steps end at the last multiple of the step (`stepGrid`): the time held after it is not measured, and
  // counts at the rate of the time measured, as usage does (utilisation x coverage x the allocation of the span).
  const spanSeconds = target.span
    ? target.span.reduce((t, [from, to]) => t + (to - from) / 1000, 0)
    : window?.seconds ?? 0;
  const measuredSeconds = spanSteps * step;
  const unmeasured =
    measuredSeconds > 0 ? Math.max(1, spanSeconds / measuredSeconds) : 1;
  const splits: Record<StepSplit, number> = {
    tokens: total(pods, p => p.splits.tokens),
    even: total(pods, p => p.splits.even),
    'per-pod': total(pods, p => p.splits['per-pod']),
  };
  const split = (['per-pod', 'tokens', 'even'] as StepSplit[]).reduce(
    (best, s) => (splits[s] > splits[best] ? s : best),
    'per-pod' as StepSplit,
  );
  const replicas = Math.max(1, target.replicas ?? 1);
  let coverage: number | undefined;
  if (window) {
    coverage =
      spanSteps > 0 ? Math.min(1, present / (replicas * spanSteps)) : 0;
  }
  const tokens = total(pods, p => p.tokens);
  const deviceTokens = total(pods, p => p.deviceTokens);
  const measuredInSpan = pods.some(p => inSpan(p).length > 0);
  const result: Partial<Attribution> = {
    seriesCount: Math.max(
      options.seriesCount,
      new Set(pods.map(p => p.device)).size,
    ),
    ...(coverage !== undefined ? { coverage } : {}),
    ...(window ? { busyGpuSeconds: busy * step } : {}),
    ...(window && held > 0 && busy > held
      ? { aboveShareGpuSeconds: (busy - held) * step * unmeasured }
      : {}),
    shareOfDevice: deviceTokens > 0 ? tokens / deviceTokens : undefined,
    utilisationSeries: stepUtilisation(pods, target.gpuSharePerReplica),
  };
  if (held > 0 && measuredInSpan) {
    result.utilisation = covered(
      {
        value: Math.min(1, busy / held),
        method: METHOD[split],
        confidence: CONFIDENCE[split],
        note: note(target, pods, split, splits),
      },
      coverage,
    );
  }
  // Memory: the device's framebuffer use split evenly between the pods sharing it; power: by busy-time share.
  const on = (s: DeviceSample) =>
    pods.find(
      p =>
        p.pod === s.pod &&
        p.namespace === s.namespace &&
        p.device === `${s.hostname}/${s.gpu}`,
    );
  const evenly = (list: DeviceSample[]) =>
    list.reduce((t, s) => t + s.value / ((on(s)?.neighbours ?? 0) + 1), 0) *
    MIB;
  if (memory?.length) {
    result.memoryUsedBytes = {
      value: evenly(memory),
      method: 'apportioned-evenly',
      confidence: 'low',
      note: "the device's memory use split evenly between the pods sharing it",
    };
    result.peakMemoryBytes = evenly(peakMemory?.length ? peakMemory : memory);
  }
  if (power?.length) {
    const share = (s: DeviceSample) => {
      const p = on(s);
      if (!p) return 0;
      return p.deviceBusy > 0 ? p.busy / p.deviceBusy : 1 / (p.neighbours + 1);
    };
    result.powerWatts = {
      value: power.reduce((t, s) => t + s.value * share(s), 0),
      method: METHOD[split],
      confidence: CONFIDENCE[split],
    };
  }
  return result;
}
