import {
  allocationCost,
  costBreakdown,
  costPerThousandTokens,
  demoPlatformConfig,
  findGpuModel,
  findPool,
  formatUsd,
  GIB,
  GpuServiceDetail,
  GpuServiceView,
  MetricsStatus,
  Overview,
  monthlyCost,
  gpuHourPrice,
  parsePlatform,
  parseUsd,
  Platform,
  projectMonthlyCost,
  Recommendation,
  ServiceClusterStatus,
  ServiceCost,
  ServiceCostSummary,
  ServiceUsage,
  TeamQuotaView,
  TimePoint,
  UsageWindow,
  serviceConditions,
  validateServiceRequest,
  poolCostSplit,
  slicesFor,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';

/**
 * Test data for the frontend, computed with gpu-common's own sizing and cost functions on the demo platform, so
 * that figures on screen can be checked against the same arithmetic the backend uses.
 */
export const platform: Platform = parsePlatform(demoPlatformConfig);

/** End of every fixture window: mid-month, so month-to-date and projection differ. */
export const NOW = Date.parse('2026-11-15T12:00:00Z');
const MONTH_START = Date.parse('2026-11-01T00:00:00Z');
const HOUR = 3_600_000;

/** The report summariser: Llama-3.1-8B on vLLM, one dedicated L4 in production. */
export function summariserService(
  overrides: Partial<GpuServiceView> = {},
): GpuServiceView {
  const request = validateServiceRequest(platform, summariserOnDedicatedL4);
  const pool = findPool(platform, 'l4-ondemand');
  const service: Omit<GpuServiceView, 'conditions'> = {
    id: '6f1c1a52-4b8e-4c55-9d1e-2f0a8f3b7c11',
    name: 'summariser',
    team: 'ml-platform',
    namespace: 'ml-serving',
    entityRef: 'component:default/summariser',
    environment: 'production',
    status: 'approved',
    reason: 'DryRun',
    statusReason: 'dry-run: rendered and stored, not applied',
    generation: 1,
    request,
    placement: { tier: 'dedicated', pool: 'l4-ondemand', gpusPerReplica: 1 },
    gpuEquivalents: 1,
    monthlyCost: formatUsd(allocationCost(pool, 1, platform.hoursPerMonth)),
    mode: 'dry-run',
    endpoint: 'http://summariser.ml-serving.svc.cluster.local:8000',
    annotations: {
      'backstage.io/kubernetes-id': 'summariser',
      'backstage.io/kubernetes-namespace': 'ml-serving',
      'gpu.backstage.io/service-id': '6f1c1a52-4b8e-4c55-9d1e-2f0a8f3b7c11',
    },
    createdBy: 'user:default/guest',
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
  return {
    conditions: serviceConditions({
      ...service,
      statusChangedAt: service.updatedAt,
    }),
    ...service,
  };
}

/** Cluster the apply-mode fixtures are deployed to. */
export const CLUSTER = 'gpu-eu';

/** The ReplicaSet of the summariser's Deployment; its pods are named after it. */
const REPLICA_SET = 'summariser-5d8f7b6c9d';
const POD_SUFFIXES = [
  'x7k2p',
  'q4v9m',
  'h2c8d',
  'w6n3t',
  'b9r5z',
  'k3f7j',
  'm8s2l',
];

/** Name of the summariser's `index`th pod. */
export function summariserPod(index = 0): string {
  return `${REPLICA_SET}-${POD_SUFFIXES[index] ?? `p${index}`}`;
}

/** What Kueue says of a pod of the summariser that does not fit the team's ClusterQueue. */
export const KUEUE_QUOTA_MESSAGE =
  "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed";

/** {@link KUEUE_QUOTA_MESSAGE} as the card says it: pools and the team queue, not Kueue's flavors and pod sets. */
export const KUEUE_QUOTA_WORDS =
  'not enough unused quota in the team queue for nvidia.com/gpu on pool l4-ondemand, 1 more needed';

/** The readiness probe failing while vLLM loads the model, as the kubelet reports it. */
export const READINESS_PROBE_MESSAGE =
  'Readiness probe failed: Get "http://10.48.2.17:8000/health": dial tcp 10.48.2.17:8000: connect: connection refused';

/** The backend's error when the cluster does not answer in time. */
export const UNREADABLE_CLUSTER_ERROR = `The cluster '${CLUSTER}' could not be read: no answer within 5000 ms`;

/**
 * The summariser in apply mode, as `GET /services/:id` answers it: `status`, `statusReason` and `clusterStatus` as
 * given (the helpers below give realistic ones).
 */
export function appliedSummariser(
  overrides: Partial<GpuServiceDetail> = {},
): GpuServiceDetail {
  const { clusterStatus, manifests, ...view } = overrides;
  return {
    ...summariserService({
      status: 'starting',
      reason: 'Applied',
      statusReason: 'Applied; waiting for the Deployment to become available',
      mode: 'apply',
      cluster: CLUSTER,
      observedGeneration: 1,
      ...view,
    }),
    manifests: manifests ?? [],
    ...(clusterStatus ? { clusterStatus } : {}),
  };
}

/**
 * Just applied, one replica whose pod Kueue holds back (scheduling gate) because the team's ClusterQueue has no GPU
 * of the flavor left. `now` is when the cluster was read.
 */
export function pendingAdmissionStatus(
  now: number = Date.now(),
): ServiceClusterStatus {
  const pod = summariserPod(0);
  return {
    cluster: CLUSTER,
    observedAt: new Date(now).toISOString(),
    deployment: {
      name: 'summariser',
      namespace: 'ml-serving',
      exists: true,
      replicas: 1,
      currentReplicas: 1,
      updatedReplicas: 1,
      readyReplicas: 0,
      availableReplicas: 0,
      available: false,
      reason: '0 of 1 updated replicas available',
      conditions: [
        {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          reason: 'ReplicaSetUpdated',
          message: `ReplicaSet "${REPLICA_SET}" is progressing.`,
        },
      ],
    },
    admission: {
      state: 'pending',
      admitted: 0,
      pending: 1,
      flavors: {},
      reason: 'Pending',
      message: KUEUE_QUOTA_MESSAGE,
      workloads: [
        {
          name: `pod-${pod}-3f9a1`,
          pod,
          state: 'pending',
          reason: 'Pending',
          message: KUEUE_QUOTA_MESSAGE,
          podSets: [],
        },
      ],
    },
    pods: [
      {
        name: pod,
        phase: 'Pending',
        ready: false,
        restarts: 0,
        schedulingGates: ['kueue.x-k8s.io/admission'],
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ],
    warnings: [],
  };
}

/**
 * Admitted by Kueue in the team's ClusterQueue on the l4-ondemand flavor, every pod running on an L4 node. With
 * `ready` false the pods still load the model (readiness probe failing, the Deployment not available); with `ready`
 * the Deployment is available and the probe's Warning events of the start are still listed.
 */
export function admittedStatus(
  options: { ready?: boolean; replicas?: number; now?: number } = {},
): ServiceClusterStatus {
  const { ready = true, replicas = 1, now = Date.now() } = options;
  const pods = Array.from({ length: replicas }, (_, i) => summariserPod(i));
  return {
    cluster: CLUSTER,
    observedAt: new Date(now).toISOString(),
    deployment: {
      name: 'summariser',
      namespace: 'ml-serving',
      exists: true,
      replicas,
      currentReplicas: replicas,
      updatedReplicas: replicas,
      readyReplicas: ready ? replicas : 0,
      availableReplicas: ready ? replicas : 0,
      available: ready,
      ...(ready
        ? {}
        : { reason: `0 of ${replicas} updated replicas available` }),
      conditions: [
        ready
          ? {
              type: 'Available',
              status: 'True',
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
            }
          : {
              type: 'Available',
              status: 'False',
              reason: 'MinimumReplicasUnavailable',
              message: 'Deployment does not have minimum availability.',
            },
        {
          type: 'Progressing',
          status: 'True',
          reason: ready ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
          message: ready
            ? `ReplicaSet "${REPLICA_SET}" has successfully progressed.`
            : `ReplicaSet "${REPLICA_SET}" is progressing.`,
        },
      ],
    },
    admission: {
      state: 'admitted',
      admitted: replicas,
      pending: 0,
      clusterQueue: 'gpu-ml-platform',
      flavors: { 'nvidia.com/gpu': 'l4-ondemand' },
      workloads: pods.map((pod, i) => ({
        name: `pod-${pod}-${(0x3f9a1 + i).toString(16)}`,
        pod,
        state: 'admitted' as const,
        clusterQueue: 'gpu-ml-platform',
        podSets: [
          {
            name: 'main',
            count: 1,
            flavors: { 'nvidia.com/gpu': 'l4-ondemand' },
          },
        ],
      })),
    },
    pods: pods.map((name, i) => ({
      name,
      node: `gpu-eu-l4-ondemand-${i}`,
      phase: 'Running',
      ready,
      restarts: 0,
      schedulingGates: [],
      ...(ready
        ? {}
        : {
            reason: 'ContainersNotReady',
            message: 'containers with unready status: [vllm]',
          }),
    })),
    warnings: [
      {
        object: { kind: 'Pod', name: pods[0] },
        reason: 'Unhealthy',
        message: READINESS_PROBE_MESSAGE,
        count: 12,
        lastSeen: new Date(now - (ready ? 3 * 60_000 : 20_000)).toISOString(),
      },
    ],
  };
}

/** The cluster did not answer in time: only the error, the service's status is the last one stored. */
export function unreadableStatus(
  now: number = Date.now(),
): ServiceClusterStatus {
  return {
    cluster: CLUSTER,
    observedAt: new Date(now).toISOString(),
    error: UNREADABLE_CLUSTER_ERROR,
  };
}

/** The 24-hour window ending at {@link NOW}, 15-minute steps. */
export const window24h: UsageWindow = {
  label: '24h',
  start: new Date(NOW - 24 * HOUR).toISOString(),
  end: new Date(NOW).toISOString(),
  durationSeconds: 86_400,
  stepSeconds: 900,
};

function series(f: (i: number) => number): TimePoint[] {
  const points = window24h.durationSeconds / window24h.stepSeconds;
  return Array.from({ length: points }, (_, i) => ({
    timestamp:
      Date.parse(window24h.start) + (i + 1) * window24h.stepSeconds * 1000,
    value: f(i),
  }));
}

const average = (points: TimePoint[]) =>
  points.reduce((sum, p) => sum + p.value, 0) / points.length;

/** A diurnal day of the summariser: busy in office hours, quiet at night. */
export function summariserUsage(
  metrics: MetricsStatus = { state: 'available' },
): ServiceUsage {
  const utilisation = series(
    i => 0.2 + 0.4 * Math.max(0, Math.sin((i / 96) * Math.PI)),
  );
  const memory = series(
    i => (16 + 3 * Math.max(0, Math.sin((i / 96) * Math.PI))) * GIB,
  );
  const tokensPerSecond = series(
    i => 150 + 450 * Math.max(0, Math.sin((i / 96) * Math.PI)),
  );
  const queue = series(i => (i > 40 && i < 56 ? 3 : 0));
  const generated = Math.round(
    average(tokensPerSecond) * window24h.durationSeconds,
  );
  const allocatedBytes = findGpuModel(platform, 'L4').memoryGiB * GIB;
  const peak = Math.max(...memory.map(p => p.value));
  return {
    serviceId: summariserService().id,
    name: 'summariser',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    tier: 'dedicated',
    pool: 'l4-ondemand',
    window: window24h,
    metrics,
    gpuEquivalents: 1,
    utilisation: {
      value: average(utilisation),
      method: 'measured',
      confidence: 'high',
    },
    memory: {
      usedBytes: {
        value: average(memory),
        method: 'measured',
        confidence: 'high',
      },
      peakUsedBytes: peak,
      allocatedBytes,
      peakFraction: peak / allocatedBytes,
    },
    tokens: {
      generated,
      prompt: generated * 3,
      generatedPerSecond: average(tokensPerSecond),
      promptPerSecond: average(tokensPerSecond) * 3,
      shareOfDevice: 1,
    },
    requests: { running: 12, waiting: 3 },
    kvCacheUsage: 0.41,
    latency: { p50Seconds: 1.8, p95Seconds: 4.2, p99Seconds: 6.9 },
    series: {
      utilisation,
      memoryUsedBytes: memory,
      generatedTokensPerSecond: tokensPerSecond,
      queueDepth: queue,
    },
  };
}

/**
 * Cost of the summariser over {@link window24h}, month-to-date and projected, from the usage above: held the whole
 * time and spent from its reservation (GitOps: Backstage does not read the cluster), so nothing is reserved unspent.
 */
export function summariserCost(
  usage: ServiceUsage = summariserUsage(),
  recommendations: Recommendation[] = [],
): ServiceCost {
  const pool = findPool(platform, 'l4-ondemand');
  const hours = window24h.durationSeconds / 3600;
  const allocation = allocationCost(pool, 1, hours);
  const utilisation = usage.utilisation?.value;
  const split =
    utilisation === undefined
      ? undefined
      : costBreakdown(allocation, utilisation);
  const elapsedHours = (NOW - MONTH_START) / HOUR;
  const monthAllocation = allocationCost(pool, 1, elapsedHours);
  const monthSplit =
    utilisation === undefined
      ? undefined
      : costBreakdown(monthAllocation, utilisation);
  return {
    serviceId: usage.serviceId,
    name: 'summariser',
    team: 'ml-platform',
    namespace: 'ml-serving',
    environment: 'production',
    status: 'approved',
    tier: 'dedicated',
    pool: 'l4-ondemand',
    window: window24h,
    metrics: usage.metrics,
    gpuEquivalents: 1,
    gpuHourPriceMicros: gpuHourPrice(pool),
    accrualBasis: 'reservation',
    allocatedHours: hours,
    reservedHours: 0,
    allocationMicros: allocation,
    reservedMicros: 0,
    usageMicros: split?.usage,
    idleMicros: split?.idle,
    utilisation: usage.utilisation,
    idleShare: split ? split.idle / split.allocation : undefined,
    generatedTokens: usage.tokens?.generated,
    costPerThousandTokensMicros: usage.tokens
      ? costPerThousandTokens(allocation, usage.tokens.generated)
      : undefined,
    monthToDate: {
      month: '2026-11',
      snapshotDays: 14,
      allocationMicros: monthAllocation,
      reservedMicros: 0,
      usageMicros: monthSplit?.usage,
      idleMicros: monthSplit?.idle,
    },
    projectedMonthMicros: projectMonthlyCost({
      monthToDate: monthAllocation,
      elapsedHours,
      hoursPerMonth: platform.hoursPerMonth,
    }),
    monthlyAllocationMicros: monthlyCost(
      allocationCost(pool, 1, 1),
      platform.hoursPerMonth,
    ),
    daily: [],
    recommendations,
  };
}

/** The quota the backend seeds for a team from the demo config, with what `held` says is reserved. */
export function teamQuota(
  team: string,
  held: Record<string, number> = {},
  heldMonthlyCostMicros = 0,
): TeamQuotaView {
  const config = platform.teams.find(t => t.name === team)!;
  return {
    team,
    pools: { ...config.gpuQuota },
    monthlyBudgetMicros: parseUsd(config.monthlyBudget),
    reservedGpuEquivalents: held,
    reservedMonthlyCostMicros: heldMonthlyCostMicros,
    updatedBy: 'gpu-backend',
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
}

/**
 * A right-size recommendation for the summariser: 9 GB of its 24 GB L4 used at low activity fits a MIG 1g.10gb slice
 * of the A100 pool; the saving is the monthly allocation difference.
 */
export function rightSizeRecommendation(): Recommendation {
  const l4 = findPool(platform, 'l4-ondemand');
  const a100 = findPool(platform, 'a100-mig');
  const current = allocationCost(l4, 1, platform.hoursPerMonth);
  // The 1g.10gb slice's weight on a100-mig (gpuShare of slicesFor, 672 of 5040 GPU units).
  const share = slicesFor(platform, a100).find(
    s => s.migProfile === '1g.10gb',
  )!.gpuShare;
  const target = allocationCost(a100, share, platform.hoursPerMonth);
  return {
    kind: 'right-size',
    severity: 'warning',
    serviceId: summariserService().id,
    serviceName: 'summariser',
    team: 'ml-platform',
    title: 'Move to a MIG 1g.10gb slice',
    message:
      'Peak memory 9.0 GB of 24 GB and 12% utilisation: a 1g.10gb slice of a100-mig fits.',
    monthlySavingMicros: current - target,
    target: {
      tier: 'mig',
      pool: 'a100-mig',
      migProfile: '1g.10gb',
      gpuEquivalents: share,
    },
    evidence: {
      utilisation: 0.12,
      peakMemoryBytes: 9e9,
      allocatedMemoryBytes: 24 * GIB,
    },
  };
}

/** What the usage route answers without metrics: no measured figure, empty series. */
export function usageWithoutMetrics(metrics: MetricsStatus): ServiceUsage {
  const full = summariserUsage(metrics);
  return {
    ...full,
    utilisation: undefined,
    engineActive: undefined,
    memory: undefined,
    tokens: undefined,
    requests: undefined,
    kvCacheUsage: undefined,
    latency: undefined,
    series: {
      utilisation: [],
      memoryUsedBytes: [],
      generatedTokensPerSecond: [],
      queueDepth: [],
    },
  };
}

/**
 * The overview of two services: the summariser (from {@link summariserCost}) and `notebook`, a quarter of a
 * time-sliced T4 of team search that sits at 5% utilisation and is a scale-to-zero candidate.
 */
export function overviewFixture(
  label: string,
  metrics: MetricsStatus = { state: 'available' },
): Overview {
  const withMetrics =
    metrics.state === 'available' || metrics.state === 'partial';
  const summariser = summariserCost(
    withMetrics ? summariserUsage(metrics) : usageWithoutMetrics(metrics),
  );
  const t4 = findPool(platform, 't4-timeslice');
  const elapsedHours = (NOW - MONTH_START) / HOUR;
  const notebookAllocation = allocationCost(t4, 0.25, 24);
  const notebookSplit = withMetrics
    ? costBreakdown(notebookAllocation, 0.05)
    : undefined;
  const notebookMonthToDate = allocationCost(t4, 0.25, elapsedHours);
  const notebookProjected = projectMonthlyCost({
    monthToDate: notebookMonthToDate,
    elapsedHours,
    hoursPerMonth: platform.hoursPerMonth,
  });
  const services: ServiceCostSummary[] = [
    {
      serviceId: summariser.serviceId,
      name: 'summariser',
      team: 'ml-platform',
      namespace: 'ml-serving',
      environment: 'production',
      status: 'approved',
      tier: 'dedicated',
      pool: 'l4-ondemand',
      gpuEquivalents: 1,
      accrualBasis: summariser.accrualBasis,
      allocationMicros: summariser.allocationMicros,
      reservedMicros: summariser.reservedMicros,
      usageMicros: summariser.usageMicros,
      idleMicros: summariser.idleMicros,
      utilisation: summariser.utilisation,
      peakMemoryFraction: withMetrics
        ? summariserUsage().memory!.peakFraction
        : undefined,
      generatedTokens: summariser.generatedTokens,
      costPerThousandTokensMicros: summariser.costPerThousandTokensMicros,
      monthToDateMicros: summariser.monthToDate.allocationMicros,
      projectedMonthMicros: summariser.projectedMonthMicros,
    },
    {
      serviceId: '0b9e2d7c-5a41-4f0e-8c3b-7d6a1e2f9a40',
      name: 'notebook',
      team: 'search',
      namespace: 'search',
      environment: 'dev',
      status: 'approved',
      tier: 'time-sliced',
      pool: 't4-timeslice',
      gpuEquivalents: 0.25,
      accrualBasis: 'reservation',
      allocationMicros: notebookAllocation,
      reservedMicros: 0,
      usageMicros: notebookSplit?.usage,
      idleMicros: notebookSplit?.idle,
      utilisation: withMetrics
        ? { value: 0.05, method: 'apportioned-by-tokens', confidence: 'medium' }
        : undefined,
      monthToDateMicros: notebookMonthToDate,
      projectedMonthMicros: notebookProjected,
    },
  ];
  const team = (name: string, list: ServiceCostSummary[]) => {
    const budget = parseUsd(
      platform.teams.find(t => t.name === name)!.monthlyBudget,
    );
    const monthToDate = list.reduce((sum, s) => sum + s.monthToDateMicros, 0);
    const projected = list.reduce((sum, s) => sum + s.projectedMonthMicros, 0);
    const allocation = list.reduce((sum, s) => sum + s.allocationMicros, 0);
    return {
      team: name,
      monthlyBudgetMicros: budget,
      monthToDateMicros: monthToDate,
      projectedMonthMicros: projected,
      budgetBurn: monthToDate / budget,
      projectedBudgetBurn: projected / budget,
      allocationMicros: allocation,
      reservedMicros: list.reduce((sum, s) => sum + s.reservedMicros, 0),
      usageMicros: withMetrics
        ? list.reduce((sum, s) => sum + s.usageMicros!, 0)
        : undefined,
      idleMicros: withMetrics
        ? list.reduce((sum, s) => sum + s.idleMicros!, 0)
        : undefined,
    };
  };
  const recommendations: Recommendation[] = withMetrics
    ? [
        {
          kind: 'scale-to-zero',
          severity: 'info',
          serviceId: services[1].serviceId,
          serviceName: 'notebook',
          team: 'search',
          title: 'Scale to zero when idle',
          message:
            'No requests for most of the window: KEDA with minReplicas 0 would stop paying for it.',
          monthlySavingMicros: allocationCost(t4, 0.25, platform.hoursPerMonth),
          evidence: { utilisation: 0.05 },
        },
      ]
    : [];
  const sum = (f: (s: ServiceCostSummary) => number) =>
    services.reduce((acc, s) => acc + f(s), 0);
  return {
    window: { ...window24h, label },
    metrics,
    queryCount: withMetrics ? 14 : 0,
    month: '2026-11',
    monthToDateMicros: sum(s => s.monthToDateMicros),
    projectedMonthMicros: sum(s => s.projectedMonthMicros),
    spotSavingMicros: 0,
    allocationMicros: sum(s => s.allocationMicros),
    reservedMicros: sum(s => s.reservedMicros),
    usageMicros: withMetrics ? sum(s => s.usageMicros!) : undefined,
    idleMicros: withMetrics ? sum(s => s.idleMicros!) : undefined,
    services,
    // What the two services hold: one L4 (5040 GPU units) and a quarter of a T4 (1260).
    pools: platform.pools.map(p =>
      poolCostSplit(
        platform,
        p,
        { 'l4-ondemand': 5040, 't4-timeslice': 1260 }[p.name] ?? 0,
      ),
    ),
    teams: [team('ml-platform', [services[0]]), team('search', [services[1]])],
    recommendations,
  };
}
