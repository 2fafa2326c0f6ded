/*
 * Simulated DCGM exporter, kube-state-metrics and vLLM series for the pods of the `./scripts/start --cluster` demo,
 * whose GPU nodes are kwok's (no GPUs, no exporters). Demo and test data only: the demo's Prometheus scrapes them from
 * scripts/simulated-metrics.mjs and the app is told (`gpu.prometheus.simulated: true`) so that every view says the
 * figures are simulated, not measured.
 *
 * Self-contained on purpose (no imports): scripts/simulated-metrics.mjs runs this file with Node's type stripping.
 * The series have the shapes the backend's queries read (gpu-backend's Prometheus fixtures); the names are checked
 * against gpu-common's DCGM and VLLM in the tests.
 */

/**
 * Sharing tier of a pod's GPU, as in the `gpu.backstage.io/tier` label.
 *
 * @public
 */
export type SimulatedTier = 'dedicated' | 'mig' | 'mps' | 'time-sliced';

/**
 * One running pod of a platform service, as the exporter found it in the cluster.
 *
 * @public
 */
export interface SimulatedPod {
  namespace: string;
  pod: string;
  /** The service's name: the Deployment name and vLLM's `model_name`. */
  service: string;
  /** First container's name (DCGM's `container`). */
  container: string;
  /** Node the pod runs on (DCGM's `Hostname`, kube-state-metrics' `node`). */
  node: string;
  tier: SimulatedTier;
  /** Extended resources the pod requests, e.g. `{ 'nvidia.com/gpu': 1 }` or `{ 'nvidia.com/mig-1g.10gb': 1 }`. */
  resources: Record<string, number>;
  /** Unix seconds the pod started: vLLM's counters count from there. */
  startedAt: number;
  /** Whether the pod serves with vLLM (Ollama pods have no vLLM series). */
  vllm: boolean;
}

/**
 * What a node's GPUs are, from its labels (`nvidia.com/gpu.product`, `nvidia.com/gpu.memory`).
 *
 * @public
 */
export interface SimulatedNode {
  product: string;
  /** Memory of one GPU, MiB. */
  memoryMiB: number;
}

/**
 * How busy a service is in the simulation: fixed per namespace and service name.
 *
 * @public
 */
export interface SimulatedLoad {
  /** `idle` services hold GPUs they barely use, so the waste views have something to show. */
  kind: 'busy' | 'idle';
  /** Mean utilisation, percent (of the GPU, MIG instance, or the pod's share of a shared GPU). */
  utilisation: number;
  /** Output tokens per second per pod. */
  tokensPerSecond: number;
}

const DEFAULT_NODE: SimulatedNode = { product: 'NVIDIA L4', memoryMiB: 23034 };

/** Seconds of one period of the utilisation wave. */
const PERIOD_SECONDS = 3600;
/** Output tokens per request. */
const TOKENS_PER_REQUEST = 300;
/** Latency buckets (seconds) and the share of requests at or below each. */
const LATENCY_BUCKETS: Array<[string, number]> = [
  ['0.5', 0.2],
  ['1', 0.6],
  ['2.5', 0.9],
  ['5', 0.98],
  ['+Inf', 1],
];

/** FNV-1a of a string, unsigned 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The load of a service: one in three is mostly idle (3-10%), the others busy (45-85%); tokens follow utilisation.
 *
 * @public
 */
export function simulatedLoad(namespace: string, service: string): SimulatedLoad {
  const h = hash(`${namespace}/${service}`);
  if (h % 3 === 0) {
    const utilisation = 3 + ((h >>> 4) % 8);
    return { kind: 'idle', utilisation, tokensPerSecond: utilisation };
  }
  const utilisation = 45 + ((h >>> 4) % 41);
  return { kind: 'busy', utilisation, tokensPerSecond: utilisation * 8 };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** Utilisation at time t: the mean with a +-20% hourly wave, phase per service, within 0..100. */
function utilisationAt(load: SimulatedLoad, key: string, t: number): number {
  const phase = (hash(key) % 360) * (Math.PI / 180);
  const value =
    load.utilisation *
    (1 + 0.2 * Math.sin((2 * Math.PI * t) / PERIOD_SECONDS + phase));
  return Math.min(100, Math.max(0, round(value)));
}

/** Memory of a MIG instance of a profile such as `1g.10gb`, MiB (the driver reports a little less than the name). */
function migMemoryMiB(profile: string): number {
  const match = /\.(\d+)gb/.exec(profile);
  return match ? Number(match[1]) * 973 : 4864;
}

/** kube-state-metrics' sanitised resource name: `nvidia.com/mig-1g.10gb` reads `nvidia_com_mig_1g_10gb`. */
function sanitise(resource: string): string {
  return resource.replace(/[^a-zA-Z0-9_]/g, '_');
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

function gpuCount(pod: SimulatedPod): number {
  return Math.max(1, Math.round(pod.resources['nvidia.com/gpu'] ?? 1));
}

function migProfileOf(pod: SimulatedPod): string | undefined {
  const key = Object.keys(pod.resources).find(r =>
    r.startsWith('nvidia.com/mig-'),
  );
  return key?.slice('nvidia.com/mig-'.length);
}

/** One GPU (or MIG instance) of a pod as DCGM labels it. */
interface Device {
  pod: SimulatedPod;
  gpu: string;
  migInstance?: string;
  migProfile?: string;
}

/**
 * Which GPUs each pod holds, deterministic for a set of pods: per node in pod-name order, dedicated pods take whole GPUs
 * from index 0, MIG pods take instances of GPU 0 (instance ids from 1), and the pods of a shared tier share GPU 0
 * (MPS or time-slicing), as the device plugin would place them on a one-GPU shared node.
 */
function devices(pods: SimulatedPod[]): Device[] {
  const byNode = new Map<string, SimulatedPod[]>();
  for (const pod of pods) {
    byNode.set(pod.node, [...(byNode.get(pod.node) ?? []), pod]);
  }
  const result: Device[] = [];
  for (const node of [...byNode.keys()].sort()) {
    const onNode = byNode
      .get(node)!
      .slice()
      .sort((a, b) =>
        `${a.namespace}/${a.pod}`.localeCompare(`${b.namespace}/${b.pod}`),
      );
    let nextGpu = 0;
    let nextInstance = 1;
    for (const pod of onNode) {
      if (pod.tier === 'dedicated') {
        for (let i = 0; i < gpuCount(pod); i++) {
          result.push({ pod, gpu: String(nextGpu++) });
        }
      } else if (pod.tier === 'mig') {
        result.push({
          pod,
          gpu: '0',
          migInstance: String(nextInstance++),
          migProfile: migProfileOf(pod) ?? '1g.10gb',
        });
      } else {
        result.push({ pod, gpu: '0' });
      }
    }
  }
  return result;
}

/**
 * The Prometheus text exposition (format 0.0.4, no timestamps: Prometheus stamps the scrape) of the simulated series at
 * unix time `now` (seconds):
 *
 * - DCGM exporter, labelled with the pod (`pod`, `namespace`, `container`, `gpu`, `UUID`, `device`, `modelName`,
 *   `Hostname`; MIG adds `GPU_I_ID` and `GPU_I_PROFILE`): `DCGM_FI_DEV_GPU_UTIL`, `DCGM_FI_DEV_POWER_USAGE` and
 *   `DCGM_FI_DEV_XID_ERRORS` (0) per dedicated GPU; `DCGM_FI_PROF_GR_ENGINE_ACTIVE` (0..1) per MIG instance;
 *   `DCGM_FI_DEV_FB_USED`/`DCGM_FI_DEV_FB_FREE` for both; on a shared GPU, the device's utilisation, memory and power
 *   copied on a series per pod (dcgm-exporter's `--kubernetes-virtual-gpus`);
 * - kube-state-metrics' `kube_pod_container_resource_requests` of each GPU resource the pod requests;
 * - vLLM (pods that run it), labelled `model_name` (the service), `engine`, `namespace` and `pod`: token, request and
 *   latency counters that grow with the seconds since the pod started, and the running/waiting/KV-cache gauges.
 *
 * @public
 */
export function simulatedMetricsText(
  pods: SimulatedPod[],
  nodes: Record<string, SimulatedNode>,
  now: number,
): string {
  const families = new Map<string, { type: string; lines: string[] }>();
  const add = (
    family: string,
    type: string,
    name: string,
    labels: Record<string, string>,
    value: number,
  ) => {
    const entry = families.get(family) ?? { type, lines: [] };
    entry.lines.push(`${name}{${labelText(labels)}} ${value}`);
    families.set(family, entry);
  };
  const loadOf = (pod: SimulatedPod) =>
    simulatedLoad(pod.namespace, pod.service);

  // Shared GPUs: the device runs the sum of its pods' shares.
  const sharedUtil = new Map<string, number>();
  const all = devices(pods);
  for (const d of all) {
    if (d.pod.tier === 'mps' || d.pod.tier === 'time-sliced') {
      const key = `${d.pod.node}/${d.gpu}`;
      const own = utilisationAt(
        loadOf(d.pod),
        `${d.pod.namespace}/${d.pod.pod}`,
        now,
      );
      sharedUtil.set(key, Math.min(100, (sharedUtil.get(key) ?? 0) + own));
    }
  }

  for (const d of all) {
    const { pod } = d;
    const node = nodes[pod.node] ?? DEFAULT_NODE;
    const labels: Record<string, string> = {
      gpu: d.gpu,
      UUID: `GPU-sim-${hash(`${pod.node}/${d.gpu}`).toString(16)}`,
      device: `nvidia${d.gpu}`,
      modelName: node.product,
      Hostname: pod.node,
      ...(d.migInstance
        ? { GPU_I_ID: d.migInstance, GPU_I_PROFILE: d.migProfile ?? '' }
        : {}),
      container: pod.container,
      namespace: pod.namespace,
      pod: pod.pod,
    };
    const key = `${pod.namespace}/${pod.pod}/${d.gpu}/${d.migInstance ?? ''}`;
    if (pod.tier === 'mig') {
      const util = utilisationAt(loadOf(pod), key, now);
      const total = migMemoryMiB(d.migProfile ?? '');
      const used = round(total * (0.5 + util / 250));
      add(
        'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
        'gauge',
        'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
        labels,
        round(util / 100),
      );
      add('DCGM_FI_DEV_FB_USED', 'gauge', 'DCGM_FI_DEV_FB_USED', labels, used);
      add(
        'DCGM_FI_DEV_FB_FREE',
        'gauge',
        'DCGM_FI_DEV_FB_FREE',
        labels,
        round(total - used),
      );
      continue;
    }
    const shared = pod.tier === 'mps' || pod.tier === 'time-sliced';
    const util = shared
      ? (sharedUtil.get(`${pod.node}/${d.gpu}`) ?? 0)
      : utilisationAt(loadOf(pod), key, now);
    const used = round(node.memoryMiB * (0.55 + util / 300));
    add('DCGM_FI_DEV_GPU_UTIL', 'gauge', 'DCGM_FI_DEV_GPU_UTIL', labels, util);
    add('DCGM_FI_DEV_FB_USED', 'gauge', 'DCGM_FI_DEV_FB_USED', labels, used);
    add(
      'DCGM_FI_DEV_FB_FREE',
      'gauge',
      'DCGM_FI_DEV_FB_FREE',
      labels,
      round(node.memoryMiB - used),
    );
    add(
      'DCGM_FI_DEV_POWER_USAGE',
      'gauge',
      'DCGM_FI_DEV_POWER_USAGE',
      labels,
      round(20 + util * 0.5),
    );
    if (!shared) {
      add(
        'DCGM_FI_DEV_XID_ERRORS',
        'gauge',
        'DCGM_FI_DEV_XID_ERRORS',
        labels,
        0,
      );
    }
  }

  for (const pod of [...pods].sort((a, b) =>
    `${a.namespace}/${a.pod}`.localeCompare(`${b.namespace}/${b.pod}`),
  )) {
    for (const [resource, amount] of Object.entries(pod.resources).sort()) {
      if (!resource.startsWith('nvidia.com/')) continue;
      add(
        'kube_pod_container_resource_requests',
        'gauge',
        'kube_pod_container_resource_requests',
        {
          namespace: pod.namespace,
          pod: pod.pod,
          container: pod.container,
          node: pod.node,
          resource: sanitise(resource),
          unit: 'integer',
        },
        amount,
      );
    }
    if (!pod.vllm) continue;
    const load = loadOf(pod);
    const seconds = Math.max(0, now - pod.startedAt);
    const vllm = {
      model_name: pod.service,
      engine: '0',
      namespace: pod.namespace,
      pod: pod.pod,
    };
    const tokens = load.tokensPerSecond;
    const requestsPerSecond = tokens / TOKENS_PER_REQUEST;
    const requests = round(requestsPerSecond * seconds);
    add(
      'vllm:generation_tokens_total',
      'counter',
      'vllm:generation_tokens_total',
      vllm,
      round(tokens * seconds),
    );
    add(
      'vllm:prompt_tokens_total',
      'counter',
      'vllm:prompt_tokens_total',
      vllm,
      round(tokens * 2 * seconds),
    );
    add(
      'vllm:request_success_total',
      'counter',
      'vllm:request_success_total',
      { ...vllm, finished_reason: 'stop' },
      requests,
    );
    const busy = load.kind === 'busy';
    add(
      'vllm:num_requests_running',
      'gauge',
      'vllm:num_requests_running',
      vllm,
      busy ? Math.max(1, Math.round(load.utilisation / 8)) : 0,
    );
    add(
      'vllm:num_requests_waiting',
      'gauge',
      'vllm:num_requests_waiting',
      vllm,
      busy && load.utilisation > 75 ? 2 : 0,
    );
    add(
      'vllm:kv_cache_usage_perc',
      'gauge',
      'vllm:kv_cache_usage_perc',
      vllm,
      round(load.utilisation / 200),
    );
    for (const [le, share] of LATENCY_BUCKETS) {
      add(
        'vllm:e2e_request_latency_seconds',
        'histogram',
        'vllm:e2e_request_latency_seconds_bucket',
        { ...vllm, le },
        round(requestsPerSecond * share * seconds),
      );
    }
    add(
      'vllm:e2e_request_latency_seconds',
      'histogram',
      'vllm:e2e_request_latency_seconds_sum',
      vllm,
      round(requestsPerSecond * 1.2 * seconds),
    );
    add(
      'vllm:e2e_request_latency_seconds',
      'histogram',
      'vllm:e2e_request_latency_seconds_count',
      vllm,
      requests,
    );
    for (const [family, perRequest] of [
      ['vllm:request_prefill_time_seconds', 0.1],
      ['vllm:request_decode_time_seconds', 1.1],
    ] as const) {
      add(family, 'histogram', `${family}_bucket`, { ...vllm, le: '+Inf' }, requests);
      add(
        family,
        'histogram',
        `${family}_sum`,
        vllm,
        round(requestsPerSecond * perRequest * seconds),
      );
      add(family, 'histogram', `${family}_count`, vllm, requests);
    }
  }

  const out: string[] = [];
  for (const [family, { type, lines }] of families) {
    out.push(
      `# HELP ${family} Simulated by the demo (scripts/start --cluster), not measured.`,
    );
    out.push(`# TYPE ${family} ${type}`);
    out.push(...lines);
  }
  return `${out.join('\n')}\n`;
}
