import {
  ClusterAdmissionStatus,
  ClusterDeploymentStatus,
  ClusterPodStatus,
  ServiceReason,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** What a `starting` service waits for, by the reason code the backend gives. */
const STARTING_PHASES: Partial<Record<ServiceReason, string>> = {
  Applied: 'waiting for the rollout',
  RolloutInProgress: 'waiting for the rollout',
  KueuePending: 'waiting for Kueue admission',
  Unschedulable: 'waiting for a node',
  ImagePullBackOff: 'an image cannot be pulled',
  CrashLoopBackOff: 'a pod is failing',
  ContainerConfigError: 'a container cannot start',
  DeploymentMissing: 'the Deployment is missing',
  WarningEvent: 'see the warning below',
  ClusterUnreachable: 'its cluster cannot be reached',
};

/** What a `failed` service failed at, by its reason code. */
const FAILURES: Partial<Record<ServiceReason, string>> = {
  ApplyFailed: 'the cluster refused the apply',
  ApplyInterrupted: 'the apply was interrupted too often',
  TeardownFailed: 'removing it from the cluster failed',
};

/**
 * The status in words, for the status chip, from the status and its reason code: `Ready`, `Starting: waiting for
 * Kueue admission`, `Applying: sending the manifests to the cluster`, `Failed: the cluster refused the apply`, ...
 */
export function statusLabel(
  status: ServiceStatus,
  reason?: ServiceReason,
): string {
  switch (status) {
    case 'ready':
      return 'Ready';
    case 'starting':
      return `Starting: ${
        (reason && STARTING_PHASES[reason]) ?? 'waiting for the rollout'
      }`;
    case 'applying':
      return 'Applying: sending the manifests to the cluster';
    case 'failed':
      return reason && FAILURES[reason]
        ? `Failed: ${FAILURES[reason]}`
        : 'Failed';
    case 'deleting':
      return reason === 'AwaitingPrune'
        ? 'Deleting: waiting for the GitOps controller to remove it'
        : 'Deleting: removing it from the cluster';
    case 'deleted':
      switch (reason) {
        case 'DeletedWithLeftovers':
          return 'Deleted: objects may remain';
        case 'PullRequestClosed':
          return 'Deleted: its pull request was closed without merging';
        case 'PullRequestExpired':
          return 'Deleted: its pull request was not merged in time';
        default:
          return 'Deleted';
      }
    case 'pending-approval':
      return 'Pending approval';
    case 'approved':
      switch (reason) {
        case 'DryRun':
          return 'Approved: rendered (dry-run)';
        case 'RenderedForGitOps':
          return 'Approved: rendered for GitOps';
        default:
          return 'Approved';
      }
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

/**
 * The pools a workload was admitted on, as the rest of the UI names them (each pool is a Kueue ResourceFlavor of the
 * same name): `pool l4-ondemand`, or `pools h100 (nvidia.com/gpu), default (cpu)` when resources got different ones.
 */
export function describeFlavors(flavors: Record<string, string>): string {
  const entries = Object.entries(flavors);
  const distinct = [...new Set(entries.map(([, flavor]) => flavor))];
  if (distinct.length === 0) return '';
  if (distinct.length === 1) return `pool ${distinct[0]}`;
  return `pools ${entries
    .map(([resource, flavor]) => `${flavor} (${resource})`)
    .join(', ')}`;
}

/**
 * Kueue's own words for why it does not admit a workload, as the rest of the UI says them: each ResourceFlavor is the
 * pool of its name, and its ClusterQueue is the team queue. `couldn't assign flavors to pod set main: insufficient
 * unused quota for nvidia.com/gpu in flavor l4-ondemand, 1 more needed` reads `not enough unused quota in the team
 * queue for nvidia.com/gpu on pool l4-ondemand, 1 more needed`. Works on any text that carries such a message (the
 * service's status reason quotes it).
 */
export function kueueMessageInWords(text: string): string {
  return text
    .replace(/couldn't assign flavors to pod set [\w.-]+: /g, '')
    .replace(
      /insufficient unused quota for (\S+) in flavor ([\w.-]+)/g,
      'not enough unused quota in the team queue for $1 on pool $2',
    )
    .replace(
      /insufficient quota for (\S+) in flavor ([\w.-]+)/g,
      'not enough quota in the team queue for $1 on pool $2',
    )
    .replace(/\bin flavor ([\w.-]+)/g, 'on pool $1')
    .replace(
      /\bflavor ([\w.-]+) doesn't match node affinity/g,
      "pool $1 does not match the pod's node affinity",
    )
    .replace(/\bflavor ([\w.-]+)/g, 'pool $1')
    .replace(/\bflavors\b/g, 'pools');
}

/** Kueue admission in one headline and one line of detail. */
export function describeAdmission(admission: ClusterAdmissionStatus): {
  value: string;
  caption: string;
} {
  const total = admission.admitted + admission.pending;
  switch (admission.state) {
    case 'admitted': {
      const where = [
        describeFlavors(admission.flavors) || undefined,
        admission.clusterQueue
          ? `team queue ${admission.clusterQueue}`
          : undefined,
      ]
        .filter(Boolean)
        .join(', ');
      return {
        value: 'Admitted',
        caption: `${where ? `On ${where}; ` : ''}${total} workload${
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
        }${kueueMessageInWords(
          admission.message ?? admission.reason ?? 'not admitted yet',
        )}`,
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
