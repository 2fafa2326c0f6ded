import {
  ClusterAdmissionStatus,
  ClusterDeploymentStatus,
  ClusterPodStatus,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** Prefix the backend gives the reason of a `ready` service that went back to `starting`. */
const AVAILABILITY_LOST = 'Availability lost: ';

/**
 * What a `starting` service waits for, from the backend's `statusReason` (the most telling cause first: Kueue, a
 * failing pod, scheduling, the Deployment).
 */
function startingPhase(reason: string): string {
  if (reason.startsWith('Waiting for Kueue admission')) {
    return 'waiting for Kueue admission';
  }
  if (/^Pod \S+ cannot be scheduled/.test(reason)) {
    return 'waiting for a node';
  }
  if (/^Pod \S+: /.test(reason)) {
    return 'a pod is failing';
  }
  if (/^Deployment \S+ is not in the cluster/.test(reason)) {
    return 'the Deployment is missing';
  }
  return 'waiting for the rollout';
}

/**
 * The status in words, for the status chip: `Ready`, `Starting: waiting for Kueue admission`, `Starting again: a pod
 * is failing` (a ready service that lost availability), `Applying: sending the manifests to the cluster`, ...
 */
export function statusLabel(
  status: ServiceStatus,
  statusReason?: string,
): string {
  switch (status) {
    case 'ready':
      return 'Ready';
    case 'starting': {
      const reason = statusReason ?? '';
      if (reason.startsWith(AVAILABILITY_LOST)) {
        return `Starting again: ${startingPhase(
          reason.slice(AVAILABILITY_LOST.length),
        )}`;
      }
      return `Starting: ${startingPhase(reason)}`;
    }
    case 'applying':
      return 'Applying: sending the manifests to the cluster';
    case 'failed':
      return 'Failed';
    case 'deleting':
      return 'Deleting: removing it from the cluster';
    case 'deleted':
      return 'Deleted';
    case 'pending-approval':
      return 'Pending approval';
    case 'approved':
      return 'Approved';
    case 'rejected':
      return 'Rejected';
    default:
      return String(status);
  }
}

/** `2 of 2 available`, with what is missing when the Deployment is not available. */
export function describeReplicas(deployment: ClusterDeploymentStatus): {
  value: string;
  caption: string;
} {
  if (!deployment.exists) {
    return {
      value: `0 of ${deployment.replicas}`,
      caption:
        deployment.reason ??
        `Deployment ${deployment.namespace}/${deployment.name} is not in the cluster`,
    };
  }
  const counts = `${deployment.readyReplicas} ready, ${deployment.updatedReplicas} updated`;
  const conditions = deployment.conditions
    .filter(c =>
      c.type === 'ReplicaFailure' ? c.status === 'True' : c.status === 'False',
    )
    .map(c => `${c.type}: ${c.status}${c.reason ? ` (${c.reason})` : ''}`);
  return {
    value: `${deployment.availableReplicas} of ${deployment.replicas}`,
    caption: [
      deployment.available ? `available; ${counts}` : counts,
      deployment.available ? undefined : deployment.reason,
      ...conditions,
    ]
      .filter(Boolean)
      .join('; '),
  };
}

/** `l4-ondemand`, or `h100 (nvidia.com/gpu), default (cpu)` when resources got different flavors. */
export function describeFlavors(flavors: Record<string, string>): string {
  const entries = Object.entries(flavors);
  const distinct = [...new Set(entries.map(([, flavor]) => flavor))];
  if (distinct.length <= 1) return distinct.join('');
  return entries
    .map(([resource, flavor]) => `${flavor} (${resource})`)
    .join(', ');
}

/** Kueue admission in one headline and one line of detail. */
export function describeAdmission(admission: ClusterAdmissionStatus): {
  value: string;
  caption: string;
} {
  const total = admission.admitted + admission.pending;
  switch (admission.state) {
    case 'admitted': {
      const flavorCount = new Set(Object.values(admission.flavors)).size;
      const where = [
        admission.clusterQueue
          ? `in ClusterQueue ${admission.clusterQueue}`
          : undefined,
        flavorCount > 0
          ? `on flavor${flavorCount > 1 ? 's' : ''} ${describeFlavors(
              admission.flavors,
            )}`
          : undefined,
      ]
        .filter(Boolean)
        .join(' ');
      return {
        value: 'Admitted',
        caption: `${where ? `${where}; ` : ''}${total} workload${
          total === 1 ? '' : 's'
        } admitted`,
      };
    }
    case 'pending':
      return {
        value: 'Pending',
        caption: `${
          total > 1
            ? `${admission.pending} of ${total} workloads pending: `
            : ''
        }${admission.message ?? admission.reason ?? 'not admitted yet'}`,
      };
    default:
      return {
        value: 'No workload',
        caption:
          'Kueue has no workload for the pods yet (no pod created, or Kueue has not seen it)',
      };
  }
}

/** The pod's phase with why it is not running or ready: `Pending (SchedulingGated)`, `Running, not ready`. */
export function describePodPhase(pod: ClusterPodStatus): string {
  const parts = [pod.phase];
  if (pod.phase === 'Running' && !pod.ready) parts[0] += ', not ready';
  if (pod.terminating) parts.push('terminating');
  if (pod.reason) parts.push(pod.reason);
  return parts.length > 1
    ? `${parts[0]} (${parts.slice(1).join(', ')})`
    : parts[0];
}
