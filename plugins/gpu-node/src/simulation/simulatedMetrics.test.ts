import { DCGM, VLLM } from '@gpu-platform/backstage-plugin-gpu-common';
import {
  SimulatedPod,
  simulatedLoad,
  simulatedMetricsText,
} from './simulatedMetrics';

const pod = (overrides: Partial<SimulatedPod>): SimulatedPod => ({
  namespace: 'team-a',
  pod: 'chat-6f7d8c9b5-abcde',
  service: 'chat',
  container: 'vllm',
  node: 'kwok-l4-0',
  tier: 'dedicated',
  resources: { 'nvidia.com/gpu': 1 },
  startedAt: 1_000_000,
  vllm: true,
  ...overrides,
});

/** Samples of the text: `name{labels}` to value. */
function samples(text: string): Map<string, number> {
  const result = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    result.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return result;
}

function find(text: string, name: string, contains: string[] = []) {
  return [...samples(text)].filter(
    ([series]) =>
      series.startsWith(`${name}{`) && contains.every(c => series.includes(c)),
  );
}

describe('simulatedMetricsText', () => {
  const nodes = {
    'kwok-a100-0': { product: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920 },
  };

  it('uses the metric names the backend queries (gpu-common DCGM and VLLM)', () => {
    const text = simulatedMetricsText(
      [
        pod({}),
        pod({
          pod: 'sum-5d4c3b2a1-xyz12',
          service: 'sum',
          node: 'kwok-a100-0',
          tier: 'mig',
          resources: { 'nvidia.com/mig-1g.10gb': 1 },
        }),
      ],
      nodes,
      1_000_600,
    );
    const names = new Set(
      [...samples(text).keys()].map(series => series.split('{')[0]),
    );
    for (const name of [
      DCGM.gpuUtil,
      DCGM.engineActive,
      DCGM.fbUsed,
      DCGM.fbFree,
      DCGM.power,
      DCGM.xid,
      VLLM.generationTokens,
      VLLM.promptTokens,
      VLLM.requestSuccess,
      VLLM.running,
      VLLM.waiting,
      VLLM.kvCache,
      `${VLLM.e2eLatency}_bucket`,
      `${VLLM.prefillTime}_sum`,
      `${VLLM.decodeTime}_sum`,
      'kube_pod_container_resource_requests',
    ]) {
      expect(names).toContain(name);
    }
    expect(text).toContain('Simulated by the demo');
  });

  it('labels a dedicated pod per GPU, and a MIG pod per instance with its profile', () => {
    const text = simulatedMetricsText(
      [
        pod({ resources: { 'nvidia.com/gpu': 2 } }),
        pod({
          pod: 'sum-5d4c3b2a1-xyz12',
          service: 'sum',
          node: 'kwok-a100-0',
          tier: 'mig',
          resources: { 'nvidia.com/mig-2g.20gb': 1 },
        }),
      ],
      nodes,
      1_000_600,
    );
    const util = find(text, DCGM.gpuUtil, ['pod="chat-6f7d8c9b5-abcde"']);
    expect(util.map(([s]) => /gpu="(\d)"/.exec(s)![1]).sort()).toEqual([
      '0',
      '1',
    ]);
    expect(util[0][0]).toContain('namespace="team-a"');
    expect(util[0][0]).toContain('Hostname="kwok-l4-0"');
    expect(util[0][0]).toContain('container="vllm"');
    const engine = find(text, DCGM.engineActive);
    expect(engine).toHaveLength(1);
    expect(engine[0][0]).toContain('GPU_I_PROFILE="2g.20gb"');
    expect(engine[0][0]).toContain('GPU_I_ID="1"');
    expect(engine[0][0]).toContain('modelName="NVIDIA A100-SXM4-80GB"');
    expect(engine[0][1]).toBeGreaterThan(0);
    expect(engine[0][1]).toBeLessThanOrEqual(1);
    // The MIG instance's memory, not the card's.
    const used = find(text, DCGM.fbUsed, ['GPU_I_ID="1"'])[0][1];
    const free = find(text, DCGM.fbFree, ['GPU_I_ID="1"'])[0][1];
    expect(used + free).toBeCloseTo(20 * 973, 3);
    expect(
      find(text, 'kube_pod_container_resource_requests', [
        'resource="nvidia_com_mig_2g_20gb"',
      ]),
    ).toHaveLength(1);
  });

  it('reports a shared GPU once per pod with the same device values', () => {
    const shared = {
      node: 'kwok-l4-ts-0',
      tier: 'time-sliced' as const,
      resources: { 'nvidia.com/gpu.shared': 1 },
    };
    const text = simulatedMetricsText(
      [
        pod({ ...shared, pod: 'a-6f7d8c9b5-aaaaa', service: 'a' }),
        pod({ ...shared, pod: 'b-6f7d8c9b5-bbbbb', service: 'b' }),
      ],
      {},
      1_000_600,
    );
    const util = find(text, DCGM.gpuUtil);
    expect(util).toHaveLength(2);
    expect(util[0][1]).toBe(util[1][1]);
    expect(util.every(([s]) => s.includes('gpu="0"'))).toBe(true);
    expect(find(text, DCGM.xid)).toHaveLength(0);
    expect(
      find(text, 'kube_pod_container_resource_requests', [
        'resource="nvidia_com_gpu_shared"',
      ]),
    ).toHaveLength(2);
  });

  it('is deterministic, and its token counters grow with time from the pod start', () => {
    const pods = [pod({})];
    expect(simulatedMetricsText(pods, {}, 1_000_600)).toBe(
      simulatedMetricsText(pods, {}, 1_000_600),
    );
    const tokens = (t: number) =>
      find(simulatedMetricsText(pods, {}, t), VLLM.generationTokens, [
        'model_name="chat"',
        'namespace="team-a"',
        'pod="chat-6f7d8c9b5-abcde"',
      ])[0][1];
    const load = simulatedLoad('team-a', 'chat');
    expect(tokens(1_000_000)).toBe(0);
    expect(tokens(1_000_600)).toBeCloseTo(load.tokensPerSecond * 600, 3);
    expect(tokens(1_001_200)).toBeGreaterThan(tokens(1_000_600));
  });

  it('has no vLLM series for pods that do not run vLLM', () => {
    const text = simulatedMetricsText([pod({ vllm: false })], {}, 1_000_600);
    expect(find(text, VLLM.generationTokens)).toHaveLength(0);
    expect(find(text, DCGM.gpuUtil)).toHaveLength(1);
  });
});

describe('simulatedLoad', () => {
  it('makes some services busy and some mostly idle, the same each time', () => {
    const loads = Array.from({ length: 30 }, (_, i) =>
      simulatedLoad('team-a', `service-${i}`),
    );
    const idle = loads.filter(l => l.kind === 'idle');
    const busy = loads.filter(l => l.kind === 'busy');
    expect(idle.length).toBeGreaterThan(0);
    expect(busy.length).toBeGreaterThan(idle.length);
    expect(Math.max(...idle.map(l => l.utilisation))).toBeLessThanOrEqual(10);
    expect(Math.min(...busy.map(l => l.utilisation))).toBeGreaterThanOrEqual(
      45,
    );
    expect(simulatedLoad('team-a', 'service-3')).toEqual(loads[3]);
  });
});
