import {
  ServiceCondition,
  ServiceReason,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * A condition's reason in the words of the people who own or govern the service, by its code (never by the
 * backend's message). Keyed by string rather than by `ServiceReason` so that words may be ready before a code is
 * (conditionWords.test checks that every code of the closed set has its words).
 */
const REASON_WORDS: Record<string, string> = {
  Reserved: 'its quota is held',
  Approved: 'approved',
  AwaitingApproval:
    'waiting for an approver (outside policy, over quota or over budget)',
  Rejected: 'an approver refused it',
  DryRun: 'rendered only: no cluster is applied to (dry-run)',
  RenderedForGitOps: 'rendered for GitOps: the GitOps tool applies it',
  Applying: 'being sent to the cluster',
  Applied: 'sent to the cluster; waiting for the rollout',
  ApplyFailed: 'the cluster refused the apply; retry it or delete the service',
  ApplyInterrupted: 'the apply was interrupted too often; retry it',
  KueuePending:
    'waiting for Kueue to admit it: the team’s queue has no free quota',
  Unschedulable: 'no node can run its pods',
  ImagePullBackOff: 'a container image cannot be pulled',
  CrashLoopBackOff: 'a container keeps crashing',
  ContainerConfigError: 'a container cannot start from its configuration',
  DeploymentMissing: 'its Deployment is missing from the cluster',
  WarningEvent: 'the cluster reports a warning about it',
  ClusterUnreachable:
    'its cluster cannot be reached: whether it runs is unknown',
  RolloutInProgress: 'rolling out',
  Available: 'available',
  Deleting: 'being removed from the cluster',
  TeardownFailed:
    'removing it from the cluster failed; its quota stays held until a retry',
  Deleted: 'deleted',
  DeletedWithLeftovers: 'deleted, but objects may remain in the cluster',
  MoveWaitingForTarget:
    'moving to another cluster: the old one keeps serving until the new one is available',
  MoveRemovingSource:
    'moved to another cluster and available there; being removed from the old one',
  PullRequestClosed:
    'its pull request was closed without merging: deleted and quota released',
  PullRequestExpired:
    'its pull request was not merged in time: closed, deleted and quota released',
  ChangePullRequestClosed:
    'the pull request of its change was closed without merging: its previous spec and quota are restored',
  ChangePullRequestExpired:
    'the pull request of its change was not merged in time: closed, and its previous spec and quota restored',
  ChangeNotConfirmed:
    'its change was not confirmed by the template that requested it: its previous spec and quota are restored',
  ChangePending:
    'available with its previous spec, as Git holds it, while its change waits for its pull request to be merged',
  DriftedFromGit:
    'available, but its objects in the cluster differ from Git; the GitOps controller restores them, Backstage does not',
  AwaitingSync:
    'available; its change is merged and waits for the GitOps controller to apply it',
  AwaitingPrune:
    'waiting for the GitOps controller to remove it from the cluster; quota stays held',
};

/** {@link REASON_WORDS} of a reason code; the code itself for one without words. */
export function reasonInWords(reason: ServiceReason): string {
  return REASON_WORDS[reason] ?? reason;
}

/**
 * The condition that says what keeps the service from where it is going: the first of Reserved, Approved, Applied
 * and Available that is not `True`, or a teardown that failed; undefined when none does (running, or deleted).
 */
export function failingCondition(
  conditions: ServiceCondition[],
): ServiceCondition | undefined {
  const failedTeardown = conditions.find(
    c => c.type === 'Deleting' && c.reason === 'TeardownFailed',
  );
  if (failedTeardown) return failedTeardown;
  if (conditions.some(c => c.type === 'Deleting')) return undefined;
  return (['Reserved', 'Approved', 'Applied', 'Available'] as const)
    .map(type => conditions.find(c => c.type === type))
    .find(c => c !== undefined && c.status !== 'True');
}
