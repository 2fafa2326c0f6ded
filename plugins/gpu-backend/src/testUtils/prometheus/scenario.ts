import { HistoryService, HistorySpec } from './history';
import { historyEnd } from './startPrometheusWithHistory';

/**
 * Pod name of replica `index` of a Deployment, shaped like Kubernetes names them.
 *
 * @public
 */
export function podName(deployment: string, index = 0): string {
  return `${deployment}-6f7d8c9b5-p${index}x7k`;
}

/**
 * Dedicated, MIG, MPS and time-sliced services side by side on the demo platform's pools:
 *
 * - `chat` (dedicated L4, scraped with `exported_pod` labels), `summariser` (MIG 1g.10gb) and `embedder` (MIG 2g.20gb
 *   on the same A100), in `ml-serving`;
 * - `rag` and `triage` on one MPS L4, with `sandbox` (not a platform service) generating tokens on the same GPU;
 * - `notebook` and `demo` time-sliced on one T4, in `search`.
 *
 * @public
 */
export function fourTierScenario(options: {
  /** Last sample, unix seconds; two hours ago by default. */
  end?: number;
  days: number;
  /** Default 300. */
  stepSeconds?: number;
}): HistorySpec {
  const stepSeconds = options.stepSeconds ?? 300;
  const mps = { hostname: 'l4-mps-node-1', gpu: '0' };
  const ts = { hostname: 't4-ts-node-1', gpu: '0' };
  const a100 = { hostname: 'a100-node-1', gpu: '3' };
  const services: HistoryService[] = [
    {
      name: 'chat',
      namespace: 'ml-serving',
      tier: 'dedicated',
      pods: [{ pod: podName('chat'), hostname: 'l4-node-1', gpu: '0' }],
      utilisation: { mean: 62, amplitude: 20 },
      memoryMiB: { mean: 20000, amplitude: 500 },
      totalMiB: 23034,
      power: { mean: 55, amplitude: 10 },
      tokensPerSecond: 600,
      running: 12,
      waiting: 2,
      kvCache: 0.41,
      exportedLabels: true,
      xid: { code: 79, lastSeconds: 600 },
    },
    {
      name: 'summariser',
      namespace: 'ml-serving',
      tier: 'mig',
      pods: [
        {
          pod: podName('summariser'),
          ...a100,
          migInstance: '9',
          migProfile: '1g.10gb',
        },
      ],
      utilisation: { mean: 45, amplitude: 10 },
      memoryMiB: { mean: 8600, amplitude: 100 },
      totalMiB: 9728,
      tokensPerSecond: 90,
      running: 3,
      kvCache: 0.3,
    },
    {
      name: 'embedder',
      namespace: 'ml-serving',
      tier: 'mig',
      pods: [
        {
          pod: podName('embedder'),
          ...a100,
          migInstance: '5',
          migProfile: '2g.20gb',
        },
      ],
      utilisation: { mean: 8, amplitude: 2 },
      memoryMiB: { mean: 6000 },
      totalMiB: 19968,
      tokensPerSecond: 25,
    },
    {
      name: 'rag',
      namespace: 'ml-serving',
      tier: 'mps',
      pods: [{ pod: podName('rag'), ...mps }],
      tokensPerSecond: 120,
      running: 4,
    },
    {
      name: 'triage',
      namespace: 'search',
      tier: 'mps',
      pods: [{ pod: podName('triage'), ...mps }],
      tokensPerSecond: 40,
      running: 1,
    },
    {
      name: 'sandbox',
      namespace: 'batch',
      tier: 'mps',
      pods: [{ pod: podName('sandbox'), ...mps }],
      tokensPerSecond: 40,
    },
    {
      name: 'notebook',
      namespace: 'search',
      tier: 'time-sliced',
      pods: [{ pod: podName('notebook'), ...ts }],
      tokensPerSecond: 10,
    },
    {
      name: 'demo',
      namespace: 'search',
      tier: 'time-sliced',
      pods: [{ pod: podName('demo'), ...ts }],
      tokensPerSecond: 30,
      waiting: 1,
    },
  ];
  return {
    end: options.end ?? historyEnd(stepSeconds),
    days: options.days,
    stepSeconds,
    services,
    sharedDevices: [
      {
        ...mps,
        utilisation: { mean: 30, amplitude: 10 },
        memoryMiB: { mean: 16000 },
        totalMiB: 23034,
        power: { mean: 60 },
      },
      {
        ...ts,
        utilisation: { mean: 20, amplitude: 5 },
        memoryMiB: { mean: 12000 },
        totalMiB: 15360,
        power: { mean: 40 },
      },
    ],
  };
}

/**
 * What `realWorldScenario` generates, for expectations computed from its parameters.
 *
 * @public
 */
export const REAL_WORLD = {
  /** `rollout`: old pod at 80% until this many seconds before the end, then the new pod at 10%. */
  rolloutNewPodSeconds: 3600,
  rolloutOldPercent: 80,
  rolloutNewPercent: 10,
  /** `flaky`: 60% throughout, its DCGM exporter down for the last 12 hours. */
  flakyPercent: 60,
  flakyGapSeconds: 12 * 3600,
  /** `latecomer`: 50%, its pod started 6 hours before the end. */
  latecomerPercent: 50,
  latecomerSeconds: 6 * 3600,
} as const;

/**
 * Real-world histories of dedicated L4 services in `ml-serving` (`end` should be a multiple of the hour, so window
 * steps fall on the boundaries):
 *
 * - `rollout`: a rollout an hour before the end: the old pod at 80% until then, the new pod at 10% after it;
 * - `flaky`: 60% throughout, but its DCGM exporter was down for the last 12 hours (vLLM still scraped);
 * - `latecomer`: a pod that started 6 hours before the end, at 50%.
 *
 * @public
 */
export function realWorldScenario(options: {
  end: number;
  days: number;
  /** Default 300. */
  stepSeconds?: number;
}): HistorySpec {
  const stepSeconds = options.stepSeconds ?? 300;
  const { end } = options;
  const r = REAL_WORLD;
  const common = {
    namespace: 'ml-serving',
    tier: 'dedicated' as const,
    memoryMiB: { mean: 12000 },
    totalMiB: 23034,
    tokensPerSecond: 100,
  };
  return {
    end,
    days: options.days,
    stepSeconds,
    services: [
      {
        ...common,
        name: 'rollout',
        pods: [
          {
            pod: 'rollout-5c8d7f9b4-old1a',
            hostname: 'l4-node-7',
            gpu: '0',
            until: end - r.rolloutNewPodSeconds,
            utilisation: { mean: r.rolloutOldPercent },
          },
          {
            pod: 'rollout-7b6c5d4e3-new2b',
            hostname: 'l4-node-7',
            gpu: '0',
            from: end - r.rolloutNewPodSeconds + stepSeconds,
            utilisation: { mean: r.rolloutNewPercent },
          },
        ],
      },
      {
        ...common,
        name: 'flaky',
        pods: [{ pod: podName('flaky'), hostname: 'l4-node-8', gpu: '0' }],
        utilisation: { mean: r.flakyPercent },
        dcgmGaps: [{ after: end - r.flakyGapSeconds, until: end }],
      },
      {
        ...common,
        name: 'latecomer',
        pods: [
          {
            pod: podName('latecomer'),
            hostname: 'l4-node-9',
            gpu: '0',
            from: end - r.latecomerSeconds + stepSeconds,
          },
        ],
        utilisation: { mean: r.latecomerPercent },
      },
    ],
  };
}

/**
 * What `sharedScenario` generates, for expectations computed from its parameters.
 *
 * @public
 */
export const SHARED = {
  /** `t4-share-node-1` (time-sliced, DCGM copies the device's value to each pod) at this utilisation. */
  copiedPercent: 20,
  /** `steady` is there throughout; `latecomer` only for this many seconds before the end. */
  lateSeconds: 6 * 3600,
  steadyTokensPerSecond: 10,
  lateTokensPerSecond: 30,
  /** `t4-share-node-2` (time-sliced, the exporter labels one pod only: `labelled`; `hidden` has no DCGM series). */
  onePodPercent: 20,
  labelledTokensPerSecond: 20,
  hiddenTokensPerSecond: 60,
  /** `hidden`'s vLLM restarted this many seconds before the end (its counters start again from 0). */
  hiddenRestartsSecondsBeforeEnd: [10 * 3600, 3 * 3600],
  /** `l4-share-node-1` (MPS, per-pod values): each pod's own utilisation. */
  busyPodPercent: 15,
  quietPodPercent: 5,
  perPodTokensPerSecond: 50,
} as const;

/**
 * Shared GPUs as real exporters report them, in `ml-serving` (`end` a multiple of the hour):
 *
 * - `steady` and `latecomer` time-sliced on one T4 whose series are the device's value copied to each pod;
 *   `latecomer` started 6 hours before the end;
 * - `labelled` and `hidden` time-sliced on another T4 whose exporter labels only `labelled` (kube-state-metrics shows
 *   both on the node); `hidden`'s vLLM restarted twice;
 * - `busy` and `quiet` on an MPS L4 whose exporter reports per-pod values.
 *
 * @public
 */
export function sharedScenario(options: {
  end: number;
  days: number;
  /** Default 300. */
  stepSeconds?: number;
}): HistorySpec {
  const stepSeconds = options.stepSeconds ?? 300;
  const { end } = options;
  const s = SHARED;
  const copied = { hostname: 't4-share-node-1', gpu: '0' };
  const onePod = { hostname: 't4-share-node-2', gpu: '0' };
  const perPod = { hostname: 'l4-share-node-1', gpu: '0' };
  const service = (
    name: string,
    tier: 'mps' | 'time-sliced',
    pod: HistoryService['pods'][number],
    tokensPerSecond: number,
  ): HistoryService => ({
    name,
    namespace: 'ml-serving',
    tier,
    pods: [pod],
    tokensPerSecond,
  });
  const device = (
    at: { hostname: string; gpu: string },
    dcgm: 'copied' | 'one-pod' | 'per-pod',
    percent: number,
  ) => ({
    ...at,
    dcgm,
    utilisation: { mean: percent },
    memoryMiB: { mean: 8000 },
    totalMiB: 15360,
  });
  return {
    end,
    days: options.days,
    stepSeconds,
    services: [
      service(
        'steady',
        'time-sliced',
        { pod: podName('steady'), ...copied },
        s.steadyTokensPerSecond,
      ),
      service(
        'latecomer',
        'time-sliced',
        {
          pod: podName('latecomer'),
          ...copied,
          from: end - s.lateSeconds + stepSeconds,
        },
        s.lateTokensPerSecond,
      ),
      service(
        'labelled',
        'time-sliced',
        { pod: podName('labelled'), ...onePod },
        s.labelledTokensPerSecond,
      ),
      service(
        'hidden',
        'time-sliced',
        {
          pod: podName('hidden'),
          ...onePod,
          restarts: s.hiddenRestartsSecondsBeforeEnd.map(r => end - r),
        },
        s.hiddenTokensPerSecond,
      ),
      service(
        'busy',
        'mps',
        {
          pod: podName('busy'),
          ...perPod,
          utilisation: { mean: s.busyPodPercent },
        },
        s.perPodTokensPerSecond,
      ),
      service(
        'quiet',
        'mps',
        {
          pod: podName('quiet'),
          ...perPod,
          utilisation: { mean: s.quietPodPercent },
        },
        s.perPodTokensPerSecond,
      ),
    ],
    sharedDevices: [
      device(copied, 'copied', s.copiedPercent),
      device(onePod, 'one-pod', s.onePodPercent),
      device(perPod, 'per-pod', s.busyPodPercent + s.quietPodPercent),
    ],
  };
}
