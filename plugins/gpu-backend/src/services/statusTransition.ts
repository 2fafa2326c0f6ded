import type {
  ServiceClusterStatus,
  ServiceReason,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** Statuses the status refresh moves between. */
export const REFRESHED_STATUSES: ServiceStatus[] = ['starting', 'ready'];

/** Reason of a service that was just applied. */
export const APPLIED_REASON =
  'Applied; waiting for the Deployment to become available';

/** Prefix of the reason of a `ready` service that went back to `starting`. */
export const AVAILABILITY_LOST = 'Availability lost';

/** Container reasons that will not go away by waiting, and the service reason each one is. */
const POD_FAILURES: ReadonlyMap<string, ServiceReason> = new Map([
  ['CrashLoopBackOff', 'CrashLoopBackOff'],
  ['OOMKilled', 'CrashLoopBackOff'],
  ['Error', 'CrashLoopBackOff'],
  ['ErrImagePull', 'ImagePullBackOff'],
  ['ImagePullBackOff', 'ImagePullBackOff'],
  ['InvalidImageName', 'ImagePullBackOff'],
  ['CreateContainerConfigError', 'ContainerConfigError'],
  ['CreateContainerError', 'ContainerConfigError'],
  ['RunContainerError', 'ContainerConfigError'],
]);

/** What the refresh writes, or `undefined` when the stored status and reason already say it. */
export interface StatusChange {
  status: 'starting' | 'ready';
  reason: ServiceReason;
  statusReason?: string;
}

/** Why a Deployment is not available: the reason code and the sentence. */
export interface NotAvailable {
  reason: ServiceReason;
  message: string;
}

/**
 * The status a `starting` or `ready` service should have from what its cluster says: `ready` exactly when the
 * Deployment is available (rollout complete, every replica available), else `starting` with why. A `ready` service
 * that lost availability goes back to `starting` with the reason prefixed by "Availability lost".
 */
export function decideStatus(
  current: {
    status: ServiceStatus;
    reason?: ServiceReason;
    statusReason?: string;
  },
  observed: ServiceClusterStatus,
): StatusChange | undefined {
  if (observed.error || !observed.deployment) {
    return undefined;
  }
  let next: StatusChange;
  if (observed.deployment.available) {
    next = { status: 'ready', reason: 'Available' };
  } else {
    const why = describeNotAvailable(observed);
    next = {
      status: 'starting',
      reason: why.reason,
      // Wording only: a service that was ready keeps saying so while it starts again.
      statusReason:
        current.status === 'ready' ||
        current.statusReason?.startsWith(AVAILABILITY_LOST)
          ? `${AVAILABILITY_LOST}: ${why.message}`
          : why.message,
    };
  }
  return unlessAlready(current, next);
}

/** `next`, or undefined when the service already has that status, reason code and sentence. */
export function unlessAlready(
  current: {
    status: ServiceStatus;
    reason?: ServiceReason;
    statusReason?: string;
  },
  next: StatusChange,
): StatusChange | undefined {
  return next.status === current.status &&
    next.reason === current.reason &&
    (next.statusReason ?? undefined) === (current.statusReason ?? undefined)
    ? undefined
    : next;
}

/**
 * Why the Deployment is not available, the most telling first: the Deployment missing, Kueue not admitting (its own
 * message, e.g. "couldn't assign flavors to pod set main: insufficient quota ..."), a pod failing (crash loop, image
 * pull), a pod that cannot be scheduled, the newest Warning event, else the rollout's progress.
 */
export function describeNotAvailable(
  observed: ServiceClusterStatus,
): NotAvailable {
  const { deployment, admission, pods = [], warnings = [] } = observed;
  if (deployment && !deployment.exists) {
    return { reason: 'DeploymentMissing', message: deployment.reason! };
  }
  if (admission?.state === 'pending') {
    const of =
      admission.pending > 1 || admission.admitted > 0
        ? ` (${admission.pending} of ${
            admission.pending + admission.admitted
          } pods)`
        : '';
    const detail = admission.message ?? admission.reason ?? 'not admitted yet';
    return {
      reason: 'KueuePending',
      message: `Waiting for Kueue admission${of}: ${detail}`,
    };
  }
  const failing = pods.find(p => p.reason && POD_FAILURES.has(p.reason));
  if (failing) {
    return {
      reason: POD_FAILURES.get(failing.reason!)!,
      message: `Pod ${failing.name}: ${failing.reason}${
        failing.message ? `: ${failing.message}` : ''
      }`,
    };
  }
  const unschedulable = pods.find(p => p.reason === 'Unschedulable');
  if (unschedulable) {
    return {
      reason: 'Unschedulable',
      message: `Pod ${unschedulable.name} cannot be scheduled${
        unschedulable.message ? `: ${unschedulable.message}` : ''
      }`,
    };
  }
  const warning = warnings[0];
  if (warning) {
    return {
      reason: 'WarningEvent',
      message: `${warning.reason} (${warning.object.kind} ${warning.object.name}): ${warning.message}`,
    };
  }
  return {
    reason: 'RolloutInProgress',
    message: `Waiting for the Deployment: ${
      deployment?.reason ?? 'not available'
    }`,
  };
}
