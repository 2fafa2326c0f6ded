import type { ClusterMode, ServiceStatus } from './types';

/**
 * Why a service has its status, as a code from a closed set: what the UI, retry, notifications and agents switch on.
 * The human sentence beside it (`statusReason`) is for people and is never parsed.
 *
 * @public
 */
export const SERVICE_REASONS = [
  /** Quota (GPU-equivalents and budget) is held for it. */
  'Reserved',
  /** Allowed by policy, or approved by an approver. */
  'Approved',
  /** Waits for an approver: outside policy, over quota or over budget. */
  'AwaitingApproval',
  /** An approver refused it. */
  'Rejected',
  /** Approved and rendered; the cluster is dry-run, nothing is applied. */
  'DryRun',
  /** Approved and rendered for a GitOps repository; Backstage applies nothing. */
  'RenderedForGitOps',
  /** Desired state recorded; the reconciler is applying it. */
  'Applying',
  /** Applied; the Deployment has not reported progress yet. */
  'Applied',
  /** Applying failed with an error that waiting will not fix (the cluster refused an object). */
  'ApplyFailed',
  /** The apply was interrupted too often (backend stopped, cluster lost) and was given up. */
  'ApplyInterrupted',
  /** Kueue has not admitted the workload (quota, flavors). */
  'KueuePending',
  /** A pod cannot be scheduled on any node. */
  'Unschedulable',
  /** A container image cannot be pulled. */
  'ImagePullBackOff',
  /** A container keeps crashing (crash loop, OOM kill, error exit). */
  'CrashLoopBackOff',
  /** A container cannot be created or started from its configuration. */
  'ContainerConfigError',
  /** The Deployment is missing from the cluster. */
  'DeploymentMissing',
  /** A warning event on one of its objects is the most telling sign. */
  'WarningEvent',
  /**
   * Its cluster cannot be reached (no answer, refused, unavailable): whether it runs is unknown. Services on other
   * clusters are not affected; it goes back to `Available` once the cluster answers and says so.
   */
  'ClusterUnreachable',
  /** The rollout is progressing. */
  'RolloutInProgress',
  /** The Deployment is available. */
  'Available',
  /** The reconciler is removing its objects from the cluster. */
  'Deleting',
  /** Removing its objects failed; quota stays held until a retry succeeds. */
  'TeardownFailed',
  /** Gone from the cluster (or never applied) and quota released. */
  'Deleted',
  /** Deleted, but objects applied while it was being deleted may remain: a DELETE sweeps again. */
  'DeletedWithLeftovers',
  /**
   * Moving to another cluster (condition `Moving`): applied there first; its objects on the cluster it leaves keep
   * serving until the new cluster says it is available (they keep serving if it never does).
   */
  'MoveWaitingForTarget',
  /** Moving to another cluster (condition `Moving`): available there; its objects on the cluster it left are being removed. */
  'MoveRemovingSource',
  /**
   * GitOps: its pull (merge) request was closed without merging; the service is deleted and its quota released
   * (rolled back).
   */
  'PullRequestClosed',
  /**
   * GitOps: its pull (merge) request was not merged within `gpu.gitops.mergeWithin`; the request is closed, the
   * service deleted and its quota released, and the platform team is told.
   */
  'PullRequestExpired',
  /**
   * GitOps: a change waits for its pull (merge) request to be merged (see the service's `pendingChange`); meanwhile
   * the cluster runs, and is compared with, the spec Git holds (the one before the change), and it is available.
   */
  'ChangePending',
  /**
   * GitOps: the pull (merge) request of a change was closed without merging; the spec and reservation the service had
   * before that change are restored (rolled back).
   */
  'ChangePullRequestClosed',
  /**
   * GitOps: the pull (merge) request of a change was not merged within `gpu.gitops.mergeWithin`; the request is closed
   * and the spec and reservation the service had before that change are restored.
   */
  'ChangePullRequestExpired',
  /**
   * GitOps: a change pending until its pull request is merged was not confirmed with that request in time (the
   * template run that requested it did not finish); the spec and reservation the service had before it are restored.
   */
  'ChangeNotConfirmed',
  /**
   * GitOps: available, but its objects in the cluster differ from the manifests in Git (e.g. scaled by hand). Reported,
   * never repaired by Backstage: Git is the source of truth, and its controller restores it.
   */
  'DriftedFromGit',
  /**
   * GitOps: available, and its last change is merged, but its GitOps controller has not applied that generation yet:
   * the cluster still runs the one before it (read with a read-only credential). Becomes `Available` once the cluster
   * matches, or `DriftedFromGit` if it then differs.
   */
  'AwaitingSync',
  /**
   * GitOps: deleted in Backstage, waiting for the GitOps controller to remove its objects from the cluster (read with
   * a read-only credential); quota stays held until they are gone.
   */
  'AwaitingPrune',
] as const;

/**
 * A value of {@link SERVICE_REASONS}.
 *
 * @public
 */
export type ServiceReason = (typeof SERVICE_REASONS)[number];

/**
 * Whether a string is one of {@link SERVICE_REASONS}.
 *
 * @public
 */
export function isServiceReason(value: unknown): value is ServiceReason {
  return (
    typeof value === 'string' &&
    (SERVICE_REASONS as readonly string[]).includes(value)
  );
}

/**
 * The condition types of a service, Kubernetes style.
 *
 * @public
 */
export type ServiceConditionType =
  | 'Reserved'
  | 'Approved'
  | 'Applied'
  | 'Available'
  | 'Deleting'
  | 'Moving';

/**
 * One condition of a service: `type`, `status`, a `reason` from {@link SERVICE_REASONS}, a human `message`, the
 * spec generation it was observed at and when its status last changed.
 *
 * @public
 */
export interface ServiceCondition {
  type: ServiceConditionType;
  status: 'True' | 'False' | 'Unknown';
  reason: ServiceReason;
  message?: string;
  /** The service's spec generation this condition describes. */
  observedGeneration: number;
  lastTransitionTime: string;
}

/**
 * What {@link serviceConditions} derives the conditions from: the stored summary of a service.
 *
 * @public
 */
export interface ServiceConditionSource {
  status: ServiceStatus;
  reason: ServiceReason;
  statusReason?: string;
  /** How its cluster is treated (apply, GitOps, dry-run). */
  mode: ClusterMode;
  /** The spec generation: 1 at creation, one more at every accepted change. */
  generation: number;
  /** The generation last applied to the cluster; absent when nothing was applied. */
  observedGeneration?: number;
  /** When the status or its reason last changed. */
  statusChangedAt: string;
  /** The cluster it is on (or moving to). */
  cluster?: string;
  /** While it moves to `cluster`: the cluster it leaves, whose objects are removed once it is available on `cluster`. */
  movingFrom?: string;
}

/**
 * The Kubernetes-style conditions of a service, derived from its stored status, reason and generations. The summary
 * `status` and these conditions say the same thing: `ready` is `Available=True`; `starting` is `Applied=True` and
 * `Available=False` with the cause as reason; `failed` is `Applied=False` with reason `ApplyFailed` (or
 * `Deleting=True` with reason `TeardownFailed`); and so on.
 *
 * @public
 */
export function serviceConditions(
  source: ServiceConditionSource,
): ServiceCondition[] {
  const conditions = statusConditions(source);
  const moving = movingCondition(source);
  return moving ? [...conditions, moving] : conditions;
}

/**
 * `Moving=True` while a service moves between clusters (and it is not being deleted): `MoveWaitingForTarget` until
 * it is available on its new cluster, then `MoveRemovingSource` while its objects on the old one are removed. None
 * otherwise.
 */
function movingCondition(
  source: ServiceConditionSource,
): ServiceCondition | undefined {
  const { movingFrom, cluster, status } = source;
  if (
    movingFrom === undefined ||
    status === 'deleting' ||
    status === 'deleted' ||
    (status === 'failed' && source.reason === 'TeardownFailed')
  ) {
    return undefined;
  }
  const target = cluster ?? 'its new cluster';
  const removing = status === 'ready';
  return {
    type: 'Moving',
    status: 'True',
    reason: removing ? 'MoveRemovingSource' : 'MoveWaitingForTarget',
    message: removing
      ? `Available on cluster ${target}; removing its objects from cluster ${movingFrom}`
      : `Moving from cluster ${movingFrom} to cluster ${target}: its objects on ${movingFrom} keep serving until it is available on ${target}`,
    observedGeneration: source.generation,
    lastTransitionTime: source.statusChangedAt,
  };
}

/** The conditions the stored status and reason say (all but `Moving`). */
function statusConditions(source: ServiceConditionSource): ServiceCondition[] {
  const { status, reason, statusReason, generation, statusChangedAt } = source;
  const at = statusChangedAt;
  const condition = (
    type: ServiceConditionType,
    value: ServiceCondition['status'],
    why: ServiceReason,
    message?: string,
    observedGeneration = generation,
  ): ServiceCondition => ({
    type,
    status: value,
    reason: why,
    ...(message ? { message } : {}),
    observedGeneration,
    lastTransitionTime: at,
  });
  const applied = source.observedGeneration ?? 0;
  switch (status) {
    case 'pending-approval':
      return [
        condition('Reserved', 'False', 'AwaitingApproval', statusReason),
        condition('Approved', 'False', 'AwaitingApproval', statusReason),
      ];
    case 'rejected':
      return [
        condition('Reserved', 'False', 'Rejected', statusReason),
        condition('Approved', 'False', 'Rejected', statusReason),
      ];
    case 'approved':
      return [
        ...held(condition),
        condition('Applied', 'False', reason, statusReason, applied),
      ];
    case 'applying':
      return [
        ...held(condition),
        condition('Applied', 'False', 'Applying', statusReason, applied),
      ];
    case 'starting':
      return [
        ...held(condition),
        condition('Applied', 'True', 'Applied', undefined, applied),
        condition(
          'Available',
          // Its cluster cannot be read: whether it is available is not known.
          reason === 'ClusterUnreachable' ? 'Unknown' : 'False',
          reason,
          statusReason,
          applied,
        ),
      ];
    case 'ready':
      return [
        ...held(condition),
        condition('Applied', 'True', 'Applied', undefined, applied),
        condition('Available', 'True', 'Available', statusReason, applied),
      ];
    case 'failed':
      if (reason === 'TeardownFailed') {
        return [
          ...held(condition),
          condition('Deleting', 'True', 'TeardownFailed', statusReason),
        ];
      }
      return [
        ...held(condition),
        condition('Applied', 'False', reason, statusReason, applied),
      ];
    case 'deleting':
      return [
        ...held(condition),
        condition('Deleting', 'True', 'Deleting', statusReason),
      ];
    case 'deleted':
    default:
      return [
        condition('Reserved', 'False', 'Deleted', statusReason),
        condition('Deleting', 'False', reason, statusReason),
      ];
  }
}

type ConditionFactory = (
  type: ServiceConditionType,
  value: ServiceCondition['status'],
  why: ServiceReason,
) => ServiceCondition;

/** The quota is held and the request approved (automatically or by an approver). */
function held(condition: ConditionFactory): ServiceCondition[] {
  return [
    condition('Reserved', 'True', 'Reserved'),
    condition('Approved', 'True', 'Approved'),
  ];
}
