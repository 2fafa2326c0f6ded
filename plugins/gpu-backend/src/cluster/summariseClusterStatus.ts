import type { KubernetesObject } from '@kubernetes/client-node';
import type {
  ClusterAdmissionStatus,
  ClusterCondition,
  ClusterDeploymentStatus,
  ClusterPodStatus,
  ClusterWarning,
  ClusterWorkloadStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** The scheduling gate Kueue puts on a pod until its Workload is admitted. */
export const KUEUE_ADMISSION_GATE = 'kueue.x-k8s.io/admission';

/** Label Kueue puts on a Workload with the UID of the object it was made for (the pod, in the pod integration). */
export const KUEUE_JOB_UID_LABEL = 'kueue.x-k8s.io/job-uid';

const DEPLOYMENT_CONDITIONS = ['Available', 'Progressing', 'ReplicaFailure'];

/** Container reasons that are normal steps of starting, not problems. */
const STARTING_REASONS = new Set(['ContainerCreating', 'PodInitializing']);

/** Plain JSON of the API server; these helpers read it defensively. */
type Json = Record<string, any>;

/** The `status.conditions` of a live object (a Deployment, a Job, a Workload). */
export function conditionsOf(object: Json | undefined): ClusterCondition[] {
  const list = object?.status?.conditions;
  if (!Array.isArray(list)) return [];
  return list
    .filter(c => typeof c?.type === 'string')
    .map(c => ({
      type: c.type,
      status: c.status,
      ...(c.reason ? { reason: String(c.reason) } : {}),
      ...(c.message ? { message: String(c.message) } : {}),
      ...(c.lastTransitionTime
        ? { lastTransitionTime: isoTime(c.lastTransitionTime) }
        : {}),
    }));
}

/**
 * A Kubernetes timestamp in one shape, ISO 8601 with milliseconds, however it was read: the API server writes RFC 3339
 * to the second (`2026-12-01T10:00:00Z`, as a watch event carries it), `@kubernetes/client-node`'s typed reads give a
 * `Date`. A value that is not a time is kept as it is.
 */
function isoTime(value: unknown): string {
  const time = new Date(value as string | Date);
  return Number.isNaN(time.getTime()) ? String(value) : time.toISOString();
}

function condition(
  conditions: ClusterCondition[],
  type: string,
): ClusterCondition | undefined {
  return conditions.find(c => c.type === type);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * The Deployment as the API server reports it, and whether its rollout is complete with every replica available
 * (`kubectl rollout status`: latest generation observed, all replicas updated, no old ones left, all updated ones
 * available, progress deadline not exceeded). `live` undefined: the cluster has no such Deployment.
 */
export function summariseDeployment(
  ref: { namespace: string; name: string },
  live: KubernetesObject | undefined,
): ClusterDeploymentStatus {
  if (!live) {
    return {
      ...ref,
      exists: false,
      replicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      available: false,
      reason: `Deployment ${ref.namespace}/${ref.name} is not in the cluster`,
      conditions: [],
    };
  }
  const deployment = live as Json;
  const spec = deployment.spec ?? {};
  const status = deployment.status ?? {};
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const currentReplicas = count(status.replicas);
  const updatedReplicas = count(status.updatedReplicas);
  const readyReplicas = count(status.readyReplicas);
  const availableReplicas = count(status.availableReplicas);
  const conditions = conditionsOf(deployment).filter(c =>
    DEPLOYMENT_CONDITIONS.includes(c.type),
  );
  const generation = count(deployment.metadata?.generation);
  const observedGeneration = count(status.observedGeneration);
  const progressing = condition(conditions, 'Progressing');

  let reason: string | undefined;
  if (observedGeneration < generation) {
    reason = `the Deployment controller has not yet observed generation ${generation}`;
  } else if (progressing?.reason === 'ProgressDeadlineExceeded') {
    reason = `progress deadline exceeded: ${progressing.message ?? ''}`.trim();
  } else if (updatedReplicas < replicas) {
    reason = `${updatedReplicas} of ${replicas} replicas updated`;
  } else if (currentReplicas > updatedReplicas) {
    reason = `${
      currentReplicas - updatedReplicas
    } old replicas pending termination`;
  } else if (availableReplicas < updatedReplicas) {
    reason = `${availableReplicas} of ${updatedReplicas} updated replicas available`;
  }
  return {
    ...ref,
    exists: true,
    replicas,
    currentReplicas,
    updatedReplicas,
    readyReplicas,
    availableReplicas,
    available: reason === undefined,
    ...(reason ? { reason } : {}),
    conditions,
  };
}

/** One pod: where it runs, whether it is ready, its gates, and why it is not running or ready. */
export function summarisePod(live: KubernetesObject): ClusterPodStatus {
  const pod = live as Json;
  const status = pod.status ?? {};
  const conditions = conditionsOf(pod);
  const containers: Json[] = [
    ...(Array.isArray(status.initContainerStatuses)
      ? status.initContainerStatuses
      : []),
    ...(Array.isArray(status.containerStatuses)
      ? status.containerStatuses
      : []),
  ];
  const ready = condition(conditions, 'Ready')?.status === 'True';
  const gates: string[] = Array.isArray(pod.spec?.schedulingGates)
    ? pod.spec.schedulingGates
        .map((g: Json) => g?.name)
        .filter((n: unknown): n is string => typeof n === 'string')
    : [];
  const why = ready ? undefined : notReadyReason(containers, conditions);
  return {
    name: String(pod.metadata?.name),
    ...(pod.spec?.nodeName ? { node: String(pod.spec.nodeName) } : {}),
    phase: String(status.phase ?? 'Unknown'),
    ready,
    restarts: containers.reduce((sum, c) => sum + count(c.restartCount), 0),
    schedulingGates: gates,
    ...(why?.reason ? { reason: why.reason } : {}),
    ...(why?.message ? { message: why.message } : {}),
    ...(pod.metadata?.deletionTimestamp ? { terminating: true } : {}),
  };
}

function notReadyReason(
  containers: Json[],
  conditions: ClusterCondition[],
): { reason?: string; message?: string } | undefined {
  const stuck = containers.find(
    c =>
      c.state?.waiting?.reason && !STARTING_REASONS.has(c.state.waiting.reason),
  );
  if (stuck) {
    return {
      reason: stuck.state.waiting.reason,
      message: stuck.state.waiting.message,
    };
  }
  const terminated = containers.find(
    c => c.state?.terminated && c.state.terminated.exitCode !== 0,
  );
  if (terminated) {
    const t = terminated.state.terminated;
    return {
      reason: t.reason ?? 'Error',
      message: t.message ?? `container ${terminated.name} exited ${t.exitCode}`,
    };
  }
  const scheduled = condition(conditions, 'PodScheduled');
  if (scheduled && scheduled.status !== 'True') {
    return { reason: scheduled.reason, message: scheduled.message };
  }
  const creating = containers.find(c => c.state?.waiting?.reason);
  if (creating) {
    return {
      reason: creating.state.waiting.reason,
      message: creating.state.waiting.message,
    };
  }
  const readyCondition = condition(conditions, 'Ready');
  if (readyCondition && readyCondition.status !== 'True') {
    return { reason: readyCondition.reason, message: readyCondition.message };
  }
  return undefined;
}

/**
 * One Kueue Workload (v1beta1 and v1beta2 have the same status shape): `admitted` when its `Admitted` condition is
 * true, `quota-reserved` when only `QuotaReserved` is, `finished` when `Finished` is, else `pending` with the reason
 * and message of its `QuotaReserved` condition.
 */
export function summariseWorkload(
  live: KubernetesObject,
  podNames: Map<string, string>,
): ClusterWorkloadStatus {
  const workload = live as Json;
  const conditions = conditionsOf(workload);
  const owner = (workload.metadata?.ownerReferences ?? []).find(
    (o: Json) => o?.kind === 'Pod',
  );
  const pod = owner ? podNames.get(owner.uid) ?? owner.name : undefined;
  const admission = workload.status?.admission;
  const podSets = Array.isArray(admission?.podSetAssignments)
    ? admission.podSetAssignments.map((a: Json) => ({
        name: String(a.name),
        ...(typeof a.count === 'number' ? { count: a.count } : {}),
        flavors: { ...(a.flavors ?? {}) } as Record<string, string>,
      }))
    : [];
  const isTrue = (type: string) =>
    condition(conditions, type)?.status === 'True';
  let state: ClusterWorkloadStatus['state'] = 'pending';
  let because: ClusterCondition | undefined;
  if (isTrue('Finished')) {
    state = 'finished';
  } else if (isTrue('Admitted')) {
    state = 'admitted';
  } else if (isTrue('QuotaReserved')) {
    state = 'quota-reserved';
    because = condition(conditions, 'Admitted');
  } else {
    because = condition(conditions, 'QuotaReserved');
  }
  return {
    name: String(workload.metadata?.name),
    ...(pod ? { pod } : {}),
    state,
    ...(because?.reason ? { reason: because.reason } : {}),
    ...(because?.message ? { message: because.message } : {}),
    ...(admission?.clusterQueue
      ? { clusterQueue: String(admission.clusterQueue) }
      : {}),
    podSets,
  };
}

/**
 * Admission of the service's pods from their Workloads. A pod gated by Kueue without a Workload counts as pending
 * (Kueue has not seen it: it is not running, or the pod is brand new).
 */
export function summariseAdmission(
  workloads: ClusterWorkloadStatus[],
  pods: ClusterPodStatus[],
): ClusterAdmissionStatus {
  const sorted = [...workloads].sort((a, b) => a.name.localeCompare(b.name));
  const live = sorted.filter(w => w.state !== 'finished');
  const admittedWorkloads = live.filter(w => w.state === 'admitted');
  const pendingWorkloads = live.filter(w => w.state !== 'admitted');
  const withWorkload = new Set(live.map(w => w.pod));
  const unseen = pods.filter(
    p =>
      !p.terminating &&
      p.schedulingGates.includes(KUEUE_ADMISSION_GATE) &&
      !withWorkload.has(p.name),
  );
  const pending = pendingWorkloads.length + unseen.length;
  const flavors: Record<string, string> = {};
  for (const w of admittedWorkloads) {
    for (const podSet of w.podSets) Object.assign(flavors, podSet.flavors);
  }
  const first = pendingWorkloads[0];
  const reason = first?.reason;
  let message = first?.message;
  if (!first && unseen.length > 0) {
    message = `pod ${unseen[0].name} is gated by ${KUEUE_ADMISSION_GATE} and has no Kueue Workload yet`;
  } else if (first && !message) {
    message =
      first.state === 'quota-reserved'
        ? `Workload ${first.name} has quota reserved and waits for its admission checks`
        : `Workload ${first.name} has not been evaluated by Kueue yet`;
  }
  let state: ClusterAdmissionStatus['state'] = 'none';
  if (pending > 0) state = 'pending';
  else if (admittedWorkloads.length > 0) state = 'admitted';
  const clusterQueue = admittedWorkloads.find(
    w => w.clusterQueue,
  )?.clusterQueue;
  return {
    state,
    admitted: admittedWorkloads.length,
    pending,
    ...(clusterQueue ? { clusterQueue } : {}),
    flavors,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    workloads: sorted,
  };
}

/** When an event was last seen: events.k8s.io series, the core/v1 last timestamp, or its event time. */
function lastSeenOf(event: Json): string | undefined {
  const value =
    event.series?.lastObservedTime ??
    event.lastTimestamp ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata?.creationTimestamp;
  return value ? new Date(value).toISOString() : undefined;
}

/**
 * The Warning events about the given objects (matched by UID, or by kind and name when the event has no UID),
 * newest first, at most `max`.
 */
export function summariseWarnings(
  events: KubernetesObject[],
  objects: { kind: string; name: string; uid?: string }[],
  max: number,
): ClusterWarning[] {
  const byUid = new Map(
    objects.filter(o => o.uid).map(o => [o.uid as string, o]),
  );
  const byName = new Set(objects.map(o => `${o.kind}/${o.name}`));
  return (events as Json[])
    .filter(e => e.type === 'Warning')
    .filter(e => {
      const about = e.involvedObject ?? {};
      return about.uid
        ? byUid.has(about.uid)
        : byName.has(`${about.kind}/${about.name}`);
    })
    .map(e => {
      const lastSeen = lastSeenOf(e);
      return {
        object: {
          kind: String(e.involvedObject.kind),
          name: String(e.involvedObject.name),
        },
        reason: String(e.reason ?? ''),
        message: String(e.message ?? '').trim(),
        count: count(e.series?.count) || count(e.count) || 1,
        ...(lastSeen ? { lastSeen } : {}),
      };
    })
    .sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? ''))
    .slice(0, max);
}
