import {
  DeviceSteps,
  PlacementSteps,
  TokenSteps,
} from '../metrics/sharedQueries';

/**
 * How a shared GPU's busy time was split at a step:
 * - `tokens`: the device's value split among the pods present by their share of the tokens generated in the step;
 * - `even`: split equally (a pod present has no token series, or no pod generated any);
 * - `per-pod`: the exporter reported a different value for each pod (per-pod accounting): each keeps its own.
 */
export type StepSplit = 'tokens' | 'even' | 'per-pod';

/** What one pod was given on one shared GPU over the window. Busy time is in GPU-steps (1 = a whole GPU for a step). */
export interface SharedPodUsage {
  namespace: string;
  pod: string;
  /** `<host>/<gpu>`. */
  device: string;
  /** Busy time attributed to the pod. */
  busy: number;
  /** Busy time attributed at each step (0 to 1 GPU). */
  busyAt: Map<number, number>;
  /** The steps at which the pod was on the device with the device measured. */
  steps: Set<number>;
  /** The device's busy time at those steps. */
  deviceBusy: number;
  /** Tokens of the pod, and of every pod on the device, at the steps split by tokens. */
  tokens: number;
  deviceTokens: number;
  /** Steps of each split. */
  splits: Record<StepSplit, number>;
  /** Steps at which the exporter labelled only one of the pods on the device (its value read as the device's). */
  onePodSteps: number;
  /** Most other pods on the device at one step. */
  neighbours: number;
}

/** A shared GPU's measured busy time over the window (GPU-steps) and the steps it was measured at. */
export interface SharedDeviceBusy {
  busy: number;
  steps: number;
}

export interface SharedAttribution {
  pods: SharedPodUsage[];
  devices: Map<string, SharedDeviceBusy>;
}

/** Values this close (percent) are one value copied to every pod. */
const SAME_VALUE = 1e-6;

const podKey = (p: { namespace: string; pod: string }) =>
  `${p.namespace}/${p.pod}`;

function grouped<T, K>(items: T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * Splits the busy time of shared GPUs step by step among the pods present at each step:
 *
 * - present: the pods with a DCGM series on the GPU at the step, plus the pods kube-state-metrics places on its node
 *   then (when the node has that one GPU in view), so an exporter that labels one pod of several does not give it the
 *   others' share;
 * - if every labelled pod reports the same value, it is the device's value copied to each (or the one labelled pod's,
 *   which is the device's): it is split among all the pods present, by their tokens in the step when every one has a
 *   token series and some generated any, else equally;
 * - if the values differ, they are per-pod values: each pod keeps its own, scaled down so the device is never more
 *   than 100% busy; pods without a series get nothing.
 *
 * A step at which no pod has a DCGM value is not measured (no busy time, no presence). The busy time of a measured
 * step is always given out in full: the pods' `busy` on a device add up to its `busy`.
 */
export function attributeSharedSteps(input: {
  steps: number[];
  util: DeviceSteps[];
  placement: PlacementSteps[];
  tokens: TokenSteps[];
}): SharedAttribution {
  const byDevice = grouped(input.util, s => `${s.hostname}/${s.gpu}`);
  const devicesOfHost = grouped([...byDevice.keys()], k =>
    k.slice(0, k.lastIndexOf('/')),
  );
  const tokensOf = new Map(input.tokens.map(t => [podKey(t), t.points]));
  const pods = new Map<string, SharedPodUsage>();
  const devices = new Map<string, SharedDeviceBusy>();
  const usage = (device: string, namespace: string, pod: string) => {
    const k = `${namespace}/${pod}@${device}`;
    let entry = pods.get(k);
    if (!entry) {
      entry = {
        namespace,
        pod,
        device,
        busy: 0,
        busyAt: new Map(),
        steps: new Set(),
        deviceBusy: 0,
        tokens: 0,
        deviceTokens: 0,
        splits: { tokens: 0, even: 0, 'per-pod': 0 },
        onePodSteps: 0,
        neighbours: 0,
      };
      pods.set(k, entry);
    }
    return entry;
  };

  for (const [device, series] of byDevice) {
    const host = device.slice(0, device.lastIndexOf('/'));
    // kube-state-metrics places a pod on a node, not a GPU: only a node with one GPU in view says which.
    const placed =
      devicesOfHost.get(host)?.length === 1
        ? input.placement.filter(p => p.hostname === host)
        : [];
    const total: SharedDeviceBusy = { busy: 0, steps: 0 };
    for (const t of input.steps) {
      const labelled = new Map<
        string,
        { namespace: string; pod: string; value: number }
      >();
      for (const s of series) {
        const v = s.points.get(t);
        if (v === undefined || !Number.isFinite(v)) continue;
        const k = podKey(s);
        const value = Math.min(100, Math.max(0, v));
        const seen = labelled.get(k);
        if (!seen || seen.value < value)
          labelled.set(k, { namespace: s.namespace, pod: s.pod, value });
      }
      if (labelled.size === 0) continue;
      const values = [...labelled.values()].map(l => l.value);
      const copied = Math.max(...values) - Math.min(...values) <= SAME_VALUE;
      total.steps += 1;
      if (!copied) {
        const sum = values.reduce((a, b) => a + b, 0) / 100;
        const scale = sum > 1 ? 1 / sum : 1;
        const deviceBusy = Math.min(1, sum);
        total.busy += deviceBusy;
        for (const l of labelled.values()) {
          const entry = usage(device, l.namespace, l.pod);
          entry.busy += (l.value / 100) * scale;
          entry.busyAt.set(t, (l.value / 100) * scale);
          entry.steps.add(t);
          entry.deviceBusy += deviceBusy;
          entry.splits['per-pod'] += 1;
          entry.neighbours = Math.max(entry.neighbours, labelled.size - 1);
        }
        continue;
      }
      const present = new Map(
        [...labelled.values()].map(l => [
          podKey(l),
          { namespace: l.namespace, pod: l.pod },
        ]),
      );
      for (const p of placed) {
        if (p.steps.has(t) && !present.has(podKey(p)))
          present.set(podKey(p), { namespace: p.namespace, pod: p.pod });
      }
      const deviceBusy = values[0] / 100;
      total.busy += deviceBusy;
      const work = [...present.keys()].map(k => {
        const points = tokensOf.get(k);
        return points ? points.get(t) ?? 0 : undefined;
      });
      const known = work.every(w => w !== undefined && Number.isFinite(w));
      const deviceTokens = known
        ? work.reduce((a: number, b) => a + Math.max(0, b ?? 0), 0)
        : 0;
      const byTokens = known && deviceTokens > 0;
      [...present.values()].forEach((p, i) => {
        const entry = usage(device, p.namespace, p.pod);
        const mine = Math.max(0, work[i] ?? 0);
        const share = byTokens ? mine / deviceTokens : 1 / present.size;
        entry.busy += deviceBusy * share;
        entry.busyAt.set(t, deviceBusy * share);
        entry.steps.add(t);
        entry.deviceBusy += deviceBusy;
        entry.splits[byTokens ? 'tokens' : 'even'] += 1;
        if (byTokens) {
          entry.tokens += mine;
          entry.deviceTokens += deviceTokens;
        }
        if (labelled.size === 1 && present.size > 1) entry.onePodSteps += 1;
        entry.neighbours = Math.max(entry.neighbours, present.size - 1);
      });
    }
    devices.set(device, total);
  }
  return { pods: [...pods.values()], devices };
}
