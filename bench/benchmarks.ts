/** The benchmarks, by the name of their results file (`bench/results/<name>.json`). */
export const BENCHMARKS = [
  {
    name: 'domain-core',
    /** Whether it takes `--rounds` (`yarn bench:all --rounds <n>` passes it on). */
    rounds: true,
    script: 'run.ts',
    what: 'quote and placement planner in process (gpu-common)',
  },
  {
    name: 'http',
    rounds: true,
    script: 'http.ts',
    what: 'the real backend over HTTP: quote vs a trivial route, creation throughput',
  },
  {
    name: 'cost',
    rounds: true,
    script: 'cost.ts',
    what: 'cost card and overview vs raw PromQL on each Prometheus of GPU_PROMETHEUS_BINARIES',
  },
  {
    name: 'apply',
    rounds: true,
    script: 'apply.ts',
    what: 'applying to a local control plane of its own (scripts/cluster), Kueue admission',
  },
  {
    name: 'prometheus-deadline',
    rounds: true,
    script: 'prometheusDeadline.ts',
    what: '40 concurrent cost cards on the real backend with a prompt, slow (4 s) and silent Prometheus, next to a trivial route',
  },
  {
    name: 'governance',
    rounds: false,
    script: 'governance.ts',
    what: "the governance page's first paint in Chromium with 10,000 services and 1,000 pending approvals stored: API requests, bytes, rows per list (needs packages/app/dist)",
  },
  {
    name: 'controller',
    rounds: true,
    script: 'controller.ts',
    what: 'the reconciler on a running local cluster (--kubeconfig, GPU_TEST_KUBECONFIG or GPU_CLUSTER_DIR): POST latency with the API server slowed to 2 s, create to Available, APPLY per object, TLS handshakes and re-apply time against a plain client-node loop',
  },
  {
    name: 'two-replicas',
    rounds: false,
    script: 'twoReplicas.ts',
    what: 'two backends on one PostgreSQL against a running local cluster (--kubeconfig, GPU_TEST_KUBECONFIG or GPU_CLUSTER_DIR): a burst of creates split across both, one SIGKILLed mid-burst; APPLY per object, every service Available or failed with a reason, the ledger',
  },
] as const;

export type BenchmarkName = (typeof BENCHMARKS)[number]['name'];

/** The benchmarks `--only a,b` names (all without it); an unknown name is an error. */
export function selectBenchmarks(only: string | undefined) {
  if (!only) return [...BENCHMARKS];
  const names = only.split(',').map(name => name.trim());
  const unknown = names.filter(name => !BENCHMARKS.some(b => b.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown benchmark ${unknown.join(', ')}: choose from ${BENCHMARKS.map(
        b => b.name,
      ).join(', ')}`,
    );
  }
  return BENCHMARKS.filter(b => names.includes(b.name));
}
