import {
  DeviceSteps,
  PlacementSteps,
  TokenSteps,
} from '../metrics/sharedQueries';
import { samplesPerStep } from './stepSamples';

/**
 * How a shared GPU's busy time was split at a step:
 * - `tokens`: the device's value split among the pods present by their share of the tokens generated in the step;
 * - `even`: split equally (a pod present has no token series, or no pod generated any);
 * - `per-pod`: the exporter reports a different value for each pod (per-pod accounting): each keeps its own.
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
  /** The device's busy time at the steps the pod was on it with the device measured (`presentAt`). */
  deviceBusy: number;
  /** Tokens of the pod, and of every pod on the device, at the steps split by tokens. */
  tokens: number;
  deviceTokens: number;
  /** Steps of each split. */
  splits: Record<StepSplit, number>;
  /** Steps at which the exporter labelled only one of the pods on the device (its value read as the device's). */
  onePodSteps: number;
  /** Steps at which the pod had a token series but no value (missed vLLM scrapes): its tokens were unknown there. */
  unknownTokenSteps: number;
  /**
   * The part of each step (0 to 1) the pod was sampled on the device: its samples in the step / the exporter's samples
   * per step (1 when sample counts are not known, or for a pod kube-state-metrics places there).
   */
  presentAt: Map<number, number>;
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

interface Labelled {
  namespace: string;
  pod: string;
  value: number;
  /** Samples in the step, when known. */
  samples?: number;
}

/** {@link labelledAt} at every time any series of a device has a point (read once per device). */
function labelledSteps(
  series: DeviceSteps[],
): Map<number, Map<string, Labelled>> {
  const times = new Set<number>();
  for (const s of series) for (const t of s.points.keys()) times.add(t);
  const steps = new Map<number, Map<string, Labelled>>();
  for (const t of times) steps.set(t, labelledAt(series, t));
  return steps;
}

/** The pods with a DCGM value on a device at step t (the highest value where a pod has several series). */
function labelledAt(series: DeviceSteps[], t: number): Map<string, Labelled> {
  const labelled = new Map<string, Labelled>();
  for (const s of series) {
    const v = s.points.get(t);
    if (v === undefined || !Number.isFinite(v)) continue;
    const k = podKey(s);
    const value = Math.min(100, Math.max(0, v));
    const samples = s.samples?.get(t);
    const seen = labelled.get(k);
    if (!seen || seen.value < value) {
      const entry: Labelled = { namespace: s.namespace, pod: s.pod, value };
      if (samples !== undefined) entry.samples = samples;
      labelled.set(k, entry);
    }
  }
  return labelled;
}

/**
 * Whether a device's exporter reports per-pod values: at most of the steps where two or more pods were sampled over
 * the same part of the step (the same number of samples), their values differ. Decided once per device, so a step
 * where a pod arrives or leaves (its mean over part of the step differs from the others') reads as what it is, the
 * device's value, and not as per-pod values adding up to more than the device was busy. Every step read counts,
 * the read-only ones beyond the window too: a pod arriving in a day's last step shares no whole step with the others
 * inside that day, but does in the step after it.
 */
function reportsPerPod(steps: Map<number, Map<string, Labelled>>): boolean {
  let differ = 0;
  let same = 0;
  for (const atStep of steps.values()) {
    const labelled = [...atStep.values()];
    if (labelled.length < 2) continue;
    const most = Math.max(...labelled.map(l => l.samples ?? 0));
    const full = labelled.filter(l => (l.samples ?? 0) === most);
    if (full.length < 2) continue;
    const values = full.map(l => l.value);
    if (Math.max(...values) - Math.min(...values) <= SAME_VALUE) same += 1;
    else differ += 1;
  }
  return differ > same;
}

/**
 * Shares (adding up to 1) of a step's busy time among pods present for `parts` of it (0 to 1) at `rates` (their
 * tokens per unit of time present, or 1 each for an even split). Pods present for part of a step are taken to be
 * there together with those present longer (an arrival or a departure inside the step): the step is cut where each
 * pod's presence ends, and each piece is split among the pods there by their rates, evenly when none generated any.
 * A pod alone for part of the step gets all of that part.
 */
export function nestedShares(parts: number[], rates: number[]): number[] {
  const order = parts.map((_, i) => i).sort((a, b) => parts[b] - parts[a]);
  const shares = parts.map(() => 0);
  const top = parts[order[0]] ?? 0;
  if (top <= 0) return parts.map(() => 1 / Math.max(1, parts.length));
  for (let k = 1; k <= order.length; k++) {
    const piece =
      parts[order[k - 1]] - (k < order.length ? parts[order[k]] : 0);
    if (piece <= 0) continue;
    // The pods there are the first k of `order`.
    let total = 0;
    for (let j = 0; j < k; j++) total += rates[order[j]];
    for (let j = 0; j < k; j++) {
      const i = order[j];
      shares[i] += (piece / top) * (total > 0 ? rates[i] / total : 1 / k);
    }
  }
  return shares;
}

/**
 * Splits the busy time of shared GPUs step by step among the pods present at each step:
 *
 * - present: the pods with a DCGM series on the GPU at the step, plus the pods kube-state-metrics places on its node
 *   then (when the node has that one GPU in view), so an exporter that labels one pod of several does not give it the
 *   others' share; each for the part of the step it was sampled (its samples / the exporter's samples per step);
 * - a device whose exporter copies the device's value to each pod (or labels one pod): the device was busy the value
 *   of the pod sampled over most of the step, times the part of the step sampled (a gap inside a step is not busy
 *   time); that is split among the pods present by their tokens in the step when every one of them has a known token
 *   count and some generated any, else by the part of the step each was present (the rule for no tokens, also where
 *   a pod's vLLM scrapes were missed: its tokens are unknown there, never 0);
 * - a device whose exporter reports per-pod values (`reportsPerPod`): each pod keeps its own value times the part of
 *   the step it was sampled, all scaled down so the device is never more than 100% busy; pods without a series get
 *   nothing.
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
  const placementOfHost = grouped(input.placement, p => p.hostname);
  // A step without any vLLM sample of a pod (missed scrapes) has unknown tokens, whatever a longer range extrapolates.
  const tokensOf = new Map(
    input.tokens.map(t => [
      podKey(t),
      t.samples
        ? new Map(
            [...t.points].filter(([time]) => (t.samples!.get(time) ?? 0) > 0),
          )
        : t.points,
    ]),
  );
  // The exporter's samples per step (0 when the counts are not known).
  const counted = input.util.flatMap(s => (s.samples ? [s.samples] : []));
  const step =
    input.steps.length > 1 ? input.steps[1] - input.steps[0] : Infinity;
  const perStep = counted.length > 0 ? samplesPerStep(counted, step) : 0;
  const partOfStep = (samples: number | undefined) =>
    perStep > 0 && samples !== undefined ? Math.min(1, samples / perStep) : 1;
  const pods: SharedPodUsage[] = [];
  const devices = new Map<string, SharedDeviceBusy>();
  /** The pods of the device being split, by `podKey`. */
  let onDevice = new Map<string, SharedPodUsage>();
  /** The pod's usage of `device`; `k` is its `podKey`. */
  const usage = (device: string, k: string, namespace: string, pod: string) => {
    let entry = onDevice.get(k);
    if (!entry) {
      entry = {
        namespace,
        pod,
        device,
        busy: 0,
        busyAt: new Map(),
        presentAt: new Map(),
        deviceBusy: 0,
        tokens: 0,
        deviceTokens: 0,
        splits: { tokens: 0, even: 0, 'per-pod': 0 },
        onePodSteps: 0,
        unknownTokenSteps: 0,
        neighbours: 0,
      };
      onDevice.set(k, entry);
      pods.push(entry);
    }
    return entry;
  };

  for (const [device, series] of byDevice) {
    const host = device.slice(0, device.lastIndexOf('/'));
    // kube-state-metrics places a pod on a node, not a GPU: only a node with one GPU in view says which.
    const placed =
      devicesOfHost.get(host)?.length === 1
        ? placementOfHost.get(host) ?? []
        : [];
    const placedKeys = placed.map(podKey);
    onDevice = new Map();
    const labelledByStep = labelledSteps(series);
    const perPod = reportsPerPod(labelledByStep);
    /**
     * A pod's tokens per whole step of presence at step t. Where it arrives or leaves inside the step, its counter
     * starts or stops there, and `rate()` extrapolates such a counter by half a scrape interval only, not to its
     * first or last scrape's whole interval: its rate is read from the adjacent step it was present for whole, when
     * there is one with known tokens.
     */
    const tokenRate = (
      pod: string,
      t: number,
      part: number,
      tokens: number | undefined,
    ) => {
      const own = Math.max(0, tokens ?? 0) / Math.max(part, 1e-9);
      if (part >= 1) return own;
      for (let side = 0; side < 2; side++) {
        const near = side === 0 ? t + step : t - step;
        const there = labelledByStep.get(near)?.get(pod);
        const nearTokens = tokensOf.get(pod)?.get(near);
        if (
          there &&
          partOfStep(there.samples) >= 1 &&
          nearTokens !== undefined &&
          Number.isFinite(nearTokens)
        )
          return Math.max(0, nearTokens);
      }
      return own;
    };
    const total: SharedDeviceBusy = { busy: 0, steps: 0 };
    for (const t of input.steps) {
      const labelled = labelledByStep.get(t);
      if (!labelled || labelled.size === 0) continue;
      total.steps += 1;
      if (perPod) {
        const own = [...labelled.values()].map(
          l => (l.value / 100) * partOfStep(l.samples),
        );
        const sum = own.reduce((a, b) => a + b, 0);
        const scale = sum > 1 ? 1 / sum : 1;
        const deviceBusy = Math.min(1, sum);
        total.busy += deviceBusy;
        [...labelled].forEach(([k, l], i) => {
          const entry = usage(device, k, l.namespace, l.pod);
          entry.busy += own[i] * scale;
          entry.busyAt.set(t, own[i] * scale);
          entry.presentAt.set(t, partOfStep(l.samples));
          entry.deviceBusy += deviceBusy;
          entry.splits['per-pod'] += 1;
          entry.neighbours = Math.max(entry.neighbours, labelled.size - 1);
        });
        continue;
      }
      // The device's value: that of the pods sampled over most of the step (a pod arriving or leaving saw part of it).
      let most = -Infinity;
      for (const l of labelled.values()) most = Math.max(most, l.samples ?? 0);
      let reference: Labelled | undefined;
      let referenceSum = 0;
      let referenceCount = 0;
      for (const l of labelled.values()) {
        if ((l.samples ?? 0) !== most) continue;
        reference ??= l;
        referenceSum += l.value;
        referenceCount += 1;
      }
      const value = referenceSum / referenceCount;
      const sampled = partOfStep(reference!.samples);
      const present = new Map<
        string,
        { namespace: string; pod: string; part: number }
      >();
      for (const [k, l] of labelled) {
        present.set(k, {
          namespace: l.namespace,
          pod: l.pod,
          part: partOfStep(l.samples),
        });
      }
      placed.forEach((p, i) => {
        if (p.steps.has(t) && !present.has(placedKeys[i]))
          present.set(placedKeys[i], {
            namespace: p.namespace,
            pod: p.pod,
            part: sampled,
          });
      });
      const deviceBusy = (value / 100) * sampled;
      total.busy += deviceBusy;
      const keys = [...present.keys()];
      const work = keys.map(k => {
        const points = tokensOf.get(k);
        return points ? points.get(t) : undefined;
      });
      const missed = keys.map(
        (k, i) => tokensOf.has(k) && work[i] === undefined,
      );
      const known = work.every(w => w !== undefined && Number.isFinite(w));
      const deviceTokens = known
        ? work.reduce((a: number, b) => a + Math.max(0, b ?? 0), 0)
        : 0;
      const byTokens = known && deviceTokens > 0;
      const here = [...present.values()];
      const shares = nestedShares(
        here.map(p => p.part),
        here.map((p, i) =>
          byTokens ? tokenRate(keys[i], t, p.part, work[i]) : 1,
        ),
      );
      here.forEach((p, i) => {
        const entry = usage(device, keys[i], p.namespace, p.pod);
        const mine = Math.max(0, work[i] ?? 0);
        const share = shares[i];
        entry.busy += deviceBusy * share;
        entry.busyAt.set(t, deviceBusy * share);
        entry.presentAt.set(t, p.part);
        entry.deviceBusy += deviceBusy;
        entry.splits[byTokens ? 'tokens' : 'even'] += 1;
        if (byTokens) {
          entry.tokens += mine;
          entry.deviceTokens += deviceTokens;
        }
        if (missed.some(Boolean)) entry.unknownTokenSteps += 1;
        if (labelled.size === 1 && present.size > 1) entry.onePodSteps += 1;
        entry.neighbours = Math.max(entry.neighbours, present.size - 1);
      });
    }
    devices.set(device, total);
  }
  return { pods, devices };
}
