import { GpuServiceView } from '@gpu-platform/backstage-plugin-gpu-common';
import { formatGpuEquivalents, formatTime } from '../common';
import { describePlacement } from './describeService';

/** Where a service stands when it does not (or no longer) run: what the card says instead of usage figures. */
export interface LifecycleState {
  kind: 'pending' | 'rejected' | 'deleting' | 'deleted';
  headline: string;
  /** Sentences under the headline: who, why, when. */
  details: string[];
  /** What the service holds now, in words. */
  held: string;
  /** Whether the service holds GPUs and quota now. */
  holds: boolean;
  /** Whether it has ever held anything whose cost the figures would show (a never approved service has not). */
  hasCost: boolean;
}

/** `user:default/alice` as `alice`. */
function who(ref: string | undefined): string {
  if (!ref) return 'someone';
  return ref.replace(/^user:(default\/)?/, '');
}

function reservation(service: GpuServiceView): string {
  const gpus = formatGpuEquivalents(service.gpuEquivalents);
  return `${gpus} GPU-equivalent${
    service.gpuEquivalents === 1 ? '' : 's'
  } ${describePlacement(service)} (${service.monthlyCost} a month)`;
}

/**
 * The lifecycle state of a service waiting for approval, rejected, being torn down or deleted; undefined for a
 * service that holds its reservation as approved (the card's figures say the rest, a dry run included).
 */
export function describeLifecycle(
  service: GpuServiceView,
): LifecycleState | undefined {
  const approval = service.approval;
  if (service.status === 'pending-approval' || approval?.state === 'pending') {
    const isChange = approval?.kind === 'change';
    const details: string[] = [];
    if (approval) {
      details.push(
        `Requested by ${who(approval.requestedBy)} on ${formatTime(
          approval.requestedAt,
        )}${isChange ? ' (a change of the running service)' : ''}.`,
      );
      // The backend weighs a pending approval again when the service is read: its reasons are why it waits now.
      for (const reason of approval.reasons) details.push(reason.message);
      if (approval.state === 'pending' && approval.reasons.length === 0) {
        details.push(
          "It fits the team's quota and budget, the pool and the policy now: nothing holds it back but an approver's decision.",
        );
      }
    }
    details.push(
      'A platform approver decides on the GPU page; the card updates when they do.',
    );
    return {
      kind: 'pending',
      headline: isChange
        ? 'Change waiting for approval'
        : 'Waiting for approval',
      details,
      held: isChange
        ? `Still holds ${reservation(service)} until the change is approved.`
        : `Nothing is held yet: approving reserves ${reservation(service)}.`,
      holds: isChange,
      hasCost: isChange,
    };
  }
  if (service.status === 'rejected') {
    const details = [
      approval?.decidedBy
        ? `Rejected by ${who(approval.decidedBy)}${
            approval.decidedAt ? ` on ${formatTime(approval.decidedAt)}` : ''
          }.`
        : 'The request was rejected.',
    ];
    if (approval?.comment) details.push(`Comment: “${approval.comment}”`);
    return {
      kind: 'rejected',
      headline: 'Request rejected',
      details,
      held: 'Nothing is held: no GPUs, quota or cost.',
      holds: false,
      hasCost: false,
    };
  }
  if (service.status === 'deleting') {
    return {
      kind: 'deleting',
      headline: 'Being decommissioned',
      details: [
        service.statusReason ??
          'Its objects are being deleted from the cluster.',
      ],
      held: `Holds ${reservation(service)} until the teardown completes.`,
      holds: true,
      hasCost: true,
    };
  }
  if (service.status === 'deleted') {
    return {
      kind: 'deleted',
      headline: 'Decommissioned',
      details: [
        `Deleted on ${formatTime(service.updatedAt)}.`,
        ...(service.statusReason ? [service.statusReason] : []),
        ...(service.retriableEnd
          ? [
              'It can be retried through a new pull request with the template “Retry GPU model service (GitOps)”: it is weighed again against the quota, budget and policy first.',
            ]
          : []),
      ],
      held: 'Nothing is held: its GPUs and quota were released.',
      holds: false,
      hasCost: true,
    };
  }
  return undefined;
}
