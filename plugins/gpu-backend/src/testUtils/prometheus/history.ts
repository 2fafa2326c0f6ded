import { SharingTier } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A deterministic signal: `mean + amplitude x sin(2 pi t / period)` (period one day by default).
 *
 * @public
 */
export interface Wave {
  mean: number;
  amplitude?: number;
  periodSeconds?: number;
}

/**
 * Value of a wave at unix time `t` (seconds).
 *
 * @public
 */
export function waveAt(wave: Wave, t: number): number {
  const period = wave.periodSeconds ?? 86400;
  return (
    wave.mean + (wave.amplitude ?? 0) * Math.sin((2 * Math.PI * t) / period)
  );
}

/**
 * Where one replica of a service runs.
 *
 * @public
 */
export interface HistoryPod {
  /** Pod name, `<deployment>-<hash>-<hash>`. */
  pod: string;
  hostname: string;
  /** GPU index on the host. */
  gpu: string;
  /** MIG instance id and profile, for the mig tier. */
  migInstance?: string;
  migProfile?: string;
  /** Unix seconds of the pod's first sample (its start); absent: from the start of the history. */
  from?: number;
  /** Unix seconds of the pod's last sample (its end, e.g. replaced in a rollout); absent: to the end. */
  until?: number;
  /**
   * DRA (`HistoryService.allocation: 'dra'`): the device allocated to the pod; default `gpu-<gpu>`, or on MIG
   * `gpu-<gpu>-mig-<profile without dots>-0-<instance>` (the NVIDIA DRA driver's `<profile id>-<placement>` at the end).
   */
  draDevice?: string;
  /**
   * MIG through DRA: what the dcgm-exporter of this pod's node labels with it (`HistoryService.draMigLabels`), instead
   * of the service's (replicas on nodes running different exporter versions).
   */
  draMigLabels?: 'instance' | 'parent-gpu';
  /**
   * This pod's utilisation, instead of the service's (e.g. a new version's); on a shared device whose exporter reports
   * per-pod values (`HistoryDevice.dcgm: 'per-pod'`), what it reports for this pod.
   */
  utilisation?: Wave;
  /**
   * Unix seconds of vLLM restarts: each happens right after the sample at that time, so every vLLM counter of the pod
   * starts again from 0 (the next sample reads one step's worth).
   */
  restarts?: number[];
}

/**
 * Unix seconds from which (exclusive) to which (inclusive) an exporter wrote no samples.
 *
 * @public
 */
export interface HistoryGap {
  after: number;
  until: number;
}

/**
 * What dcgm-exporter writes for the pods of a shared GPU:
 * - `copied`: the device's values on a series per pod (`--kubernetes-virtual-gpus`);
 * - `per-pod`: each pod's own utilisation (per-pod accounting; `HistoryPod.utilisation`);
 * - `one-pod`: the device's values on one series only, labelled with one of its pods (without
 *   `--kubernetes-virtual-gpus` the pod mapper keeps one pod per GPU): the first pod of the spec present at that time.
 *
 * @public
 */
export type DcgmSharing = 'copied' | 'per-pod' | 'one-pod';

/**
 * A GPU shared by MPS or time-slicing.
 *
 * @public
 */
export interface HistoryDevice {
  hostname: string;
  gpu: string;
  /** Default `copied`. */
  dcgm?: DcgmSharing;
  /** DCGM_FI_DEV_GPU_UTIL, percent. */
  utilisation: Wave;
  /** DCGM_FI_DEV_FB_USED, MiB. */
  memoryMiB: Wave;
  /** Card memory, MiB (FB_USED + FB_FREE). */
  totalMiB: number;
  /** Watts. */
  power?: Wave;
}

/**
 * One service's pods and traffic.
 *
 * @public
 */
export interface HistoryService {
  /** Service name: vLLM's `model_name` and the Deployment name. */
  name: string;
  namespace: string;
  tier: SharingTier;
  pods: HistoryPod[];
  /**
   * Dedicated: DCGM_FI_DEV_GPU_UTIL (percent) of each pod's GPU; MIG: DCGM_FI_PROF_GR_ENGINE_ACTIVE x 100 of each
   * instance. Ignored for shared tiers (the device's value is reported).
   */
  utilisation?: Wave;
  /** Dedicated and MIG: framebuffer used per pod, MiB. */
  memoryMiB?: Wave;
  /** Dedicated and MIG: card or instance memory, MiB. */
  totalMiB?: number;
  /**
   * Dedicated: watts per GPU. MIG: the parent GPU's watts, which dcgm-exporter reports on each MIG instance's series
   * (and, with `draMigLabels: 'parent-gpu'`, on the parent GPU's copy that carries the pod).
   */
  power?: Wave;
  /** vLLM output tokens per second per pod (constant, so increase() is exact). */
  tokensPerSecond: number;
  /** The pods run something other than vLLM: no vLLM series. */
  withoutVllm?: boolean;
  promptTokensPerSecond?: number;
  /** vLLM requests running at once (`vllm:num_requests_running`) per pod while serving; 0 while `idle`. */
  running?: number;
  waiting?: number;
  kvCache?: number;
  /** Scrape without honorLabels: DCGM series carry `exported_pod`/`exported_namespace` and the exporter's own pod. */
  exportedLabels?: boolean;
  /** XID error code reported from this many seconds before the end (dedicated only). */
  xid?: { code: number; lastSeconds: number };
  /** The DCGM exporter of the service's nodes was down (no DCGM samples; vLLM still scraped). */
  dcgmGaps?: HistoryGap[];
  /** vLLM served no traffic then (still scraped): its token and request counters stay flat. */
  idle?: HistoryGap[];
  /** vLLM was not scraped then (missed scrapes): no vLLM samples, while its counters kept counting. */
  vllmGaps?: HistoryGap[];
  /**
   * How the pods get their GPUs: `device-plugin` (default) or `dra` (a ResourceClaim per pod from the service's
   * ResourceClaimTemplate, claim `gpu`, NVIDIA's DRA driver `gpu.nvidia.com`). DRA pods' DCGM series carry what
   * dcgm-exporter adds for a DRA device (`internal/pkg/transformation/const.go`, `kubernetes.go`) besides `pod`,
   * `namespace` and `container`: `dra_claim_name`, `dra_claim_namespace`, `dra_driver_name`, `dra_pool_name` (the node,
   * as the driver names its pools), `dra_device_name`, and on MIG devices `dra_mig_profile` and `dra_mig_device_uuid`.
   * kube-state-metrics reports no GPU request for them (a claim is not a container resource).
   */
  allocation?: 'device-plugin' | 'dra';
  /**
   * MIG through DRA: the series dcgm-exporter labels with the pod. `instance` (default; 4.6.0-4.8.3 and later,
   * NVIDIA/dcgm-exporter#664): the MIG instance's (`GPU_I_ID`), as with the device plugin. `parent-gpu`
   * (before 4.6.0-4.8.3, keyed by the device's `parentUUID`): a copy of the parent GPU's series per pod, without `GPU_I_ID`,
   * with the whole GPU's values (`parentGpu`), while the instance's own series carry no pod.
   */
  draMigLabels?: 'instance' | 'parent-gpu';
  /** `draMigLabels: 'parent-gpu'`: the whole GPU's engine activity x 100, and its memory used and total, MiB. */
  parentGpu?: { utilisation: Wave; memoryMiB: Wave; totalMiB: number };
  /** DCGM series carry `pod_uid` (`DCGM_EXPORTER_KUBERNETES_ENABLE_POD_UID`; on DRA series since 4.8.4, #718). */
  podUid?: boolean;
  /**
   * The name of the node's label on DCGM series: `Hostname` (default) or `hostname`, as dcgm-exporter writes it since
   * NVIDIA/dcgm-exporter#655 (merged after 4.5.3-4.8.2, `internal/pkg/rendermetrics/render_metrics.go`).
   */
  hostnameLabel?: 'Hostname' | 'hostname';
  /**
   * Seconds each request spends prefilling and decoding: vLLM's `vllm:request_prefill_time_seconds` and
   * `vllm:request_decode_time_seconds` histograms (sum, count, +Inf bucket). Absent: the pods do not report them.
   */
  phaseSecondsPerRequest?: { prefill: number; decode: number };
}

/**
 * Everything to generate.
 *
 * @public
 */
export interface HistorySpec {
  /** Unix seconds of the last sample; samples run from `end - days x 86400` to `end` every `stepSeconds`. */
  end: number;
  days: number;
  stepSeconds: number;
  services: HistoryService[];
  sharedDevices?: HistoryDevice[];
  /**
   * kube-state-metrics' `kube_pod_container_resource_requests` of every pod while it exists (`resource`
   * `nvidia_com_gpu`, or `nvidia_com_mig_<profile>`; `node` its host). Default true.
   */
  kubeState?: boolean;
}

/**
 * Latency buckets (seconds) and the share of requests at or below each.
 *
 * @public
 */
export const LATENCY_BUCKETS: Array<[string, number]> = [
  ['0.5', 0.2],
  ['1', 0.6],
  ['2.5', 0.9],
  ['5', 0.98],
  ['+Inf', 1],
];

/**
 * Output tokens per request in the generated traffic.
 *
 * @public
 */
export const TOKENS_PER_REQUEST = 300;

/**
 * Times of the samples of a spec.
 *
 * @public
 */
export function sampleTimes(
  spec: Pick<HistorySpec, 'end' | 'days' | 'stepSeconds'>,
): number[] {
  const times: number[] = [];
  const start = spec.end - spec.days * 86400;
  for (let t = start; t <= spec.end; t += spec.stepSeconds) times.push(t);
  return times;
}

function labelText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(
      ([k, v]) =>
        `${k}="${v
          .replace(/\\/g, '\\\\')
          .replace(/"/g, '\\"')
          .replace(/\n/g, '\\n')}"`,
    )
    .join(',');
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** Five characters as Kubernetes appends to the name of a claim generated from a template. */
function draSuffix(pod: string): string {
  let h = 0;
  for (const c of pod) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h.toString(36).padStart(5, '0').slice(-5);
}

/** The NVIDIA DRA driver's name of a pod's device (`HistoryPod.draDevice`). */
function draDeviceName(pod: HistoryPod): string {
  if (pod.draDevice) return pod.draDevice;
  if (!pod.migInstance) return `gpu-${pod.gpu}`;
  const profile = (pod.migProfile ?? '').replace(/\./g, '');
  return `gpu-${pod.gpu}-mig-${profile}-0-${pod.migInstance}`;
}

/** Whether the exporter labels the parent GPU of a DRA MIG device with its pod instead of the instance. */
function parentGpuLabels(service: HistoryService, pod: HistoryPod): boolean {
  return (
    service.tier === 'mig' &&
    service.allocation === 'dra' &&
    (pod.draMigLabels ?? service.draMigLabels) === 'parent-gpu'
  );
}

/** A MIG instance's series as dcgm-exporter writes it when no pod is mapped to it: the device labels only. */
function instanceOnly(labels: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) {
    if (
      !['pod', 'namespace', 'container', 'pod_uid'].includes(k) &&
      !k.startsWith('dra_')
    )
      kept[k] = v;
  }
  return kept;
}

/**
 * The OpenMetrics text of a spec (DCGM exporter and vLLM series, ending with `# EOF`), as lines. Every value written
 * is `round(x)` to 6 decimals so tests can recompute the exact samples.
 *
 * @public
 */
export function* openMetricsLines(spec: HistorySpec): Generator<string> {
  const times = sampleTimes(spec);
  const start = times[0];
  type Series = {
    labels: Record<string, string>;
    value: (t: number) => number;
    /** Whether there is a sample at t (the pod's lifetime, exporter gaps). */
    present: (t: number) => boolean;
  };
  const families = new Map<
    string,
    { type: string; series: Array<Series & { name: string }> }
  >();
  // Whether the series being added has a sample at t: set per pod (its lifetime) and per family (DCGM gaps).
  let current: (t: number) => boolean = () => true;
  const add = (
    family: string,
    type: string,
    name: string,
    labels: Record<string, string>,
    value: (t: number) => number,
  ) => {
    const entry = families.get(family) ?? { type, series: [] };
    entry.series.push({ name, labels, value, present: current });
    families.set(family, entry);
  };
  const dcgmLabels = (
    service: HistoryService,
    pod: HistoryPod,
  ): Record<string, string> => {
    const device = {
      gpu: pod.gpu,
      UUID: `GPU-${pod.hostname}-${pod.gpu}`,
      device: `nvidia${pod.gpu}`,
      modelName: 'NVIDIA GPU',
      [service.hostnameLabel ?? 'Hostname']: pod.hostname,
      ...(pod.migInstance
        ? { GPU_I_ID: pod.migInstance, GPU_I_PROFILE: pod.migProfile ?? '' }
        : {}),
      container: 'vllm',
    };
    const dra: Record<string, string> =
      service.allocation === 'dra'
        ? {
            dra_claim_name: `${pod.pod}-gpu-${draSuffix(pod.pod)}`,
            dra_claim_namespace: service.namespace,
            dra_device_name: draDeviceName(pod),
            dra_driver_name: 'gpu.nvidia.com',
            dra_pool_name: pod.hostname,
            ...(pod.migInstance
              ? {
                  dra_mig_device_uuid: `MIG-${pod.hostname}-${pod.gpu}-${pod.migInstance}`,
                  dra_mig_profile: pod.migProfile ?? '',
                }
              : {}),
          }
        : {};
    const uid: Record<string, string> = service.podUid
      ? { pod_uid: `uid-${pod.pod}` }
      : {};
    return service.exportedLabels
      ? {
          ...device,
          pod: `dcgm-exporter-${pod.hostname}`,
          namespace: 'gpu-operator',
          exported_pod: pod.pod,
          exported_namespace: service.namespace,
        }
      : {
          ...device,
          ...dra,
          namespace: service.namespace,
          pod: pod.pod,
          ...uid,
        };
  };
  const devices = new Map(
    (spec.sharedDevices ?? []).map(d => [`${d.hostname}/${d.gpu}`, d]),
  );

  const alive = (pod: HistoryPod) => (t: number) =>
    (pod.from === undefined || t >= pod.from) &&
    (pod.until === undefined || t <= pod.until);
  const exporterUp = (service: HistoryService) => (t: number) =>
    !(service.dcgmGaps ?? []).some(g => t > g.after && t <= g.until);

  const isShared = (service: HistoryService) =>
    service.tier === 'mps' || service.tier === 'time-sliced';
  // One-pod labelling: the pod whose name the device's series carries at t (the first in the spec with a sample).
  const sharing = spec.services.flatMap(service =>
    isShared(service)
      ? service.pods.map(pod => ({
          pod,
          device: `${pod.hostname}/${pod.gpu}`,
          sampled: (t: number) => alive(pod)(t) && exporterUp(service)(t),
        }))
      : [],
  );
  const labelledAt = (device: string, t: number) =>
    sharing.find(p => p.device === device && p.sampled(t))?.pod;

  for (const service of spec.services) {
    for (const pod of service.pods) {
      const labels = dcgmLabels(service, pod);
      const podAlive = alive(pod);
      const up = exporterUp(service);
      current = t => podAlive(t) && up(t);
      if (isShared(service)) {
        const device = devices.get(`${pod.hostname}/${pod.gpu}`);
        if (!device)
          throw new Error(
            `No shared device ${pod.hostname}/${pod.gpu} for ${service.name}`,
          );
        if (device.dcgm === 'one-pod') {
          const key = `${pod.hostname}/${pod.gpu}`;
          current = t => podAlive(t) && up(t) && labelledAt(key, t) === pod;
        }
        const own = pod.utilisation ?? service.utilisation ?? { mean: 0 };
        const util = device.dcgm === 'per-pod' ? own : device.utilisation;
        add(
          'DCGM_FI_DEV_GPU_UTIL',
          'gauge',
          'DCGM_FI_DEV_GPU_UTIL',
          labels,
          t => round(waveAt(util, t)),
        );
        add('DCGM_FI_DEV_FB_USED', 'gauge', 'DCGM_FI_DEV_FB_USED', labels, t =>
          round(waveAt(device.memoryMiB, t)),
        );
        add('DCGM_FI_DEV_FB_FREE', 'gauge', 'DCGM_FI_DEV_FB_FREE', labels, t =>
          round(device.totalMiB - waveAt(device.memoryMiB, t)),
        );
        if (device.power) {
          const power = device.power;
          add(
            'DCGM_FI_DEV_POWER_USAGE',
            'gauge',
            'DCGM_FI_DEV_POWER_USAGE',
            labels,
            t => round(waveAt(power, t)),
          );
        }
      } else if (service.tier === 'mig') {
        const util = pod.utilisation ?? service.utilisation ?? { mean: 0 };
        add(
          'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
          'gauge',
          'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
          parentGpuLabels(service, pod) ? instanceOnly(labels) : labels,
          t => round(waveAt(util, t) / 100),
        );
        if (service.power) {
          const power = service.power;
          add(
            'DCGM_FI_DEV_POWER_USAGE',
            'gauge',
            'DCGM_FI_DEV_POWER_USAGE',
            parentGpuLabels(service, pod) ? instanceOnly(labels) : labels,
            t => round(waveAt(power, t)),
          );
        }
        const parent = parentGpuLabels(service, pod)
          ? service.parentGpu
          : undefined;
        if (parent) {
          // The pod's labels on a copy of the parent GPU's series, without the instance's id and profile.
          const onGpu = Object.fromEntries(
            Object.entries(labels).filter(
              ([k]) => k !== 'GPU_I_ID' && k !== 'GPU_I_PROFILE',
            ),
          );
          add(
            'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
            'gauge',
            'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
            onGpu,
            t => round(waveAt(parent.utilisation, t) / 100),
          );
          add('DCGM_FI_DEV_FB_USED', 'gauge', 'DCGM_FI_DEV_FB_USED', onGpu, t =>
            round(waveAt(parent.memoryMiB, t)),
          );
          add('DCGM_FI_DEV_FB_FREE', 'gauge', 'DCGM_FI_DEV_FB_FREE', onGpu, t =>
            round(parent.totalMiB - waveAt(parent.memoryMiB, t)),
          );
          if (service.power) {
            const power = service.power;
            add(
              'DCGM_FI_DEV_POWER_USAGE',
              'gauge',
              'DCGM_FI_DEV_POWER_USAGE',
              onGpu,
              t => round(waveAt(power, t)),
            );
          }
        }
      } else {
        const util = pod.utilisation ?? service.utilisation ?? { mean: 0 };
        add(
          'DCGM_FI_DEV_GPU_UTIL',
          'gauge',
          'DCGM_FI_DEV_GPU_UTIL',
          labels,
          t => round(waveAt(util, t)),
        );
        if (service.power) {
          const power = service.power;
          add(
            'DCGM_FI_DEV_POWER_USAGE',
            'gauge',
            'DCGM_FI_DEV_POWER_USAGE',
            labels,
            t => round(waveAt(power, t)),
          );
        }
        const xid = service.xid;
        add(
          'DCGM_FI_DEV_XID_ERRORS',
          'gauge',
          'DCGM_FI_DEV_XID_ERRORS',
          labels,
          t => (xid && t > spec.end - xid.lastSeconds ? xid.code : 0),
        );
      }
      if (service.tier === 'dedicated' || service.tier === 'mig') {
        const memory = service.memoryMiB ?? { mean: 0 };
        const total = service.totalMiB ?? 0;
        const own =
          service.tier === 'mig' && parentGpuLabels(service, pod)
            ? instanceOnly(labels)
            : labels;
        add('DCGM_FI_DEV_FB_USED', 'gauge', 'DCGM_FI_DEV_FB_USED', own, t =>
          round(waveAt(memory, t)),
        );
        add('DCGM_FI_DEV_FB_FREE', 'gauge', 'DCGM_FI_DEV_FB_FREE', own, t =>
          round(total - waveAt(memory, t)),
        );
      }
      current = podAlive;
      if ((spec.kubeState ?? true) && service.allocation !== 'dra') {
        add(
          'kube_pod_container_resource_requests',
          'gauge',
          'kube_pod_container_resource_requests',
          {
            namespace: service.namespace,
            pod: pod.pod,
            uid: `uid-${pod.pod}`,
            container: 'vllm',
            node: pod.hostname,
            resource: pod.migProfile
              ? `nvidia_com_mig_${pod.migProfile.replace(/\./g, '_')}`
              : 'nvidia_com_gpu',
            unit: 'integer',
          },
          () => 1,
        );
      }
      if (service.withoutVllm) continue;
      const scraped = (t: number) =>
        !(service.vllmGaps ?? []).some(g => t > g.after && t <= g.until);
      current = t => podAlive(t) && scraped(t);
      // Counters count from the pod's last restart before t (a restart right after the sample at its time), over the
      // seconds that were not idle.
      const restarts = pod.restarts ?? [];
      const since = (t: number) => {
        const from = Math.max(start, ...restarts.filter(r => r < t));
        const idle = (service.idle ?? []).reduce(
          (sum, g) =>
            sum + Math.max(0, Math.min(t, g.until) - Math.max(from, g.after)),
          0,
        );
        return t - from - idle;
      };
      const vllm = {
        model_name: service.name,
        engine: '0',
        namespace: service.namespace,
        pod: pod.pod,
      };
      const tokens = service.tokensPerSecond;
      const prompt = service.promptTokensPerSecond ?? tokens * 2;
      add(
        'vllm:generation_tokens',
        'counter',
        'vllm:generation_tokens_total',
        vllm,
        t => tokens * since(t),
      );
      add(
        'vllm:prompt_tokens',
        'counter',
        'vllm:prompt_tokens_total',
        vllm,
        t => prompt * since(t),
      );
      // No traffic, no request running: the gauge reads 0 while the service is idle.
      const serving = (t: number) =>
        !(service.idle ?? []).some(g => t > g.after && t <= g.until);
      add(
        'vllm:num_requests_running',
        'gauge',
        'vllm:num_requests_running',
        vllm,
        t => (serving(t) ? service.running ?? 0 : 0),
      );
      add(
        'vllm:num_requests_waiting',
        'gauge',
        'vllm:num_requests_waiting',
        vllm,
        () => service.waiting ?? 0,
      );
      add(
        'vllm:kv_cache_usage_perc',
        'gauge',
        'vllm:kv_cache_usage_perc',
        vllm,
        () => service.kvCache ?? 0,
      );
      const requestsPerSecond = tokens / TOKENS_PER_REQUEST;
      add(
        'vllm:request_success',
        'counter',
        'vllm:request_success_total',
        { ...vllm, finished_reason: 'stop' },
        t => round(requestsPerSecond * since(t)),
      );
      for (const [le, share] of LATENCY_BUCKETS) {
        add(
          'vllm:e2e_request_latency_seconds',
          'histogram',
          'vllm:e2e_request_latency_seconds_bucket',
          { ...vllm, le },
          t => round(requestsPerSecond * share * since(t)),
        );
      }
      add(
        'vllm:e2e_request_latency_seconds',
        'histogram',
        'vllm:e2e_request_latency_seconds_count',
        vllm,
        t => round(requestsPerSecond * since(t)),
      );
      add(
        'vllm:e2e_request_latency_seconds',
        'histogram',
        'vllm:e2e_request_latency_seconds_sum',
        vllm,
        t => round(requestsPerSecond * 1.2 * since(t)),
      );
      const phases = service.phaseSecondsPerRequest;
      if (phases) {
        for (const [family, perRequest] of [
          ['vllm:request_prefill_time_seconds', phases.prefill],
          ['vllm:request_decode_time_seconds', phases.decode],
        ] as const) {
          const count = (t: number) => round(requestsPerSecond * since(t));
          add(
            family,
            'histogram',
            `${family}_bucket`,
            { ...vllm, le: '+Inf' },
            count,
          );
          add(family, 'histogram', `${family}_count`, vllm, count);
          add(family, 'histogram', `${family}_sum`, vllm, t =>
            round(requestsPerSecond * perRequest * since(t)),
          );
        }
      }
    }
  }

  for (const [family, { type, series }] of families) {
    yield `# TYPE ${family} ${type}`;
    for (const s of series) {
      const prefix = `${s.name}{${labelText(s.labels)}} `;
      for (const t of times) {
        if (s.present(t)) yield `${prefix}${s.value(t)} ${t}`;
      }
    }
  }
  yield '# EOF';
}
