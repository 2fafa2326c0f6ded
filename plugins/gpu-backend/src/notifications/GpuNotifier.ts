import { LoggerService } from '@backstage/backend-plugin-api';
import { parseEntityRef } from '@backstage/catalog-model';
import {
  NotificationSendOptions,
  NotificationService,
} from '@backstage/plugin-notifications-node';
import { SignalsService } from '@backstage/plugin-signals-node';
import {
  GPU_SERVICE_CHANGES_CHANNEL,
  GpuServiceChangeSignal,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ApprovalRecord, ServiceRecord } from '../database';
import { withoutInternalAddresses } from '../errors/internalAddresses';

/** The governance page, where approvers decide (the frontend plugin's route). */
export const GOVERNANCE_PAGE_LINK = '/gpu';

/** Notification topics (the notifications page filters and the user's notification settings by topic). */
export const NOTIFICATION_TOPICS = {
  /** Requests waiting for a platform approver, sent to the approvers. */
  approvals: 'GPU approvals',
  /** A service's decision, failed apply or teardown, readiness: sent to its requester and team. */
  services: 'GPU services',
} as const;

/** The scope of the approvers' notification about a service: one per service, a new request replaces the last. */
export function approvalScope(serviceId: string): string {
  return `gpu-approval:${serviceId}`;
}

/** The scope of the requester's and team's notification about a service: its latest decision or state replaces the last. */
export function serviceScope(serviceId: string): string {
  return `gpu-service:${serviceId}`;
}

/** The catalog page of the service's entity (`/catalog/<namespace>/<kind>/<name>`), by its name when it has none. */
export function entityPageLink(service: ServiceRecord): string {
  if (service.entityRef) {
    try {
      const ref = parseEntityRef(service.entityRef, {
        defaultKind: 'component',
        defaultNamespace: 'default',
      });
      return `/catalog/${encodeURIComponent(
        ref.namespace,
      )}/${encodeURIComponent(
        ref.kind.toLocaleLowerCase('en-US'),
      )}/${encodeURIComponent(ref.name)}`;
    } catch {
      // fall through to the service's name
    }
  }
  return `/catalog/default/component/${encodeURIComponent(service.name)}`;
}

/** `alice` for `user:default/alice`; other actors (`service:...`, `system:...`) as they are. */
function nameOf(actor: string | undefined): string {
  if (!actor) return 'someone';
  const match = /^user:(?:[^/]+\/)?(.+)$/.exec(actor);
  return match ? match[1] : actor;
}

function isUserRef(ref: string | undefined): ref is string {
  return Boolean(ref && /^user:/i.test(ref));
}

function teamGroup(team: string): string {
  return `group:default/${team}`;
}

function describePlacement(service: ServiceRecord): string {
  const { placement, request } = service;
  const slice = placement.migProfile ? ` ${placement.migProfile}` : '';
  return `${request.model}, ${placement.tier}${slice} on ${placement.pool}, ${
    request.replicas
  } replica${request.replicas === 1 ? '' : 's'}, ${service.environment}`;
}

function afterApproval(service: ServiceRecord): string {
  if (service.mode === 'gitops') {
    return 'Its manifests are rendered for GitOps.';
  }
  if (service.mode === 'dry-run') {
    return 'It is rendered and stored (dry-run: no cluster is configured).';
  }
  return 'It is being applied to the cluster; you will be told when it is ready.';
}

/** Collaborators and settings of {@link GpuNotifier}. */
export interface GpuNotifierOptions {
  /** The notifications plugin's service; sends to the notifications backend. */
  notifications: NotificationService;
  /** The signals plugin's service; publishes to the browsers of signed-in users. */
  signals: SignalsService;
  logger: LoggerService;
  /** Group refs whose members approve ({@link readPlatformGroups}). */
  platformGroups: string[];
}

/**
 * Tells people what happened to GPU model services, through the Backstage notifications plugin, and tells open
 * pages through a signal that they should read again:
 *
 * - the platform approver groups: every request waiting for approval (new service or change), linking to the
 *   governance page; scoped per service, so a newer request of the same service replaces the older one, and the
 *   decision replaces it with its outcome;
 * - the requester: the decision (approved or rejected, by whom, with the comment), linking to the entity page;
 * - the owning team and the requester: a failed apply or teardown, and a service that became ready; scoped per
 *   service together with the decision, so the newest state of a service replaces the last one;
 * - the browsers of the team's members and of the platform groups: a {@link GpuServiceChangeSignal} on
 *   `gpu:service-changes` for every change of the team's services and quota.
 *
 * Best effort, never in the way of the change it reports: the store write has happened when this is called, sends
 * run one after another in the background (so two updates of one scope arrive in order), and a failed send is
 * logged, not thrown. The `notificationService` dependency is always present (its default factory sends to the
 * notifications backend over HTTP), so without the notifications backend installed each send fails and is logged
 * as a warning while everything else works; the same holds for signals without the signals backend (published to
 * nobody).
 */
export class GpuNotifier {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: GpuNotifierOptions) {}

  /** A new service or a change waits for approval: tell the approvers. */
  pendingApproval(
    service: ServiceRecord,
    approval: ApprovalRecord,
  ): Promise<void> {
    return this.send('pending approval', {
      recipients: {
        type: 'entity',
        entityRef: this.options.platformGroups,
        // Nobody decides their own request: the requester is not told to approve it.
        ...(isUserRef(approval.requestedBy)
          ? { excludeEntityRef: approval.requestedBy }
          : {}),
      },
      payload: {
        title: `GPU ${
          approval.kind === 'change' ? 'change' : 'request'
        } needs approval: ${service.name} (${service.team})`,
        description: `${nameOf(approval.requestedBy)} requests ${
          approval.kind === 'change' ? `a change of ${service.name} to` : ''
        }${
          approval.kind === 'change' ? ' ' : `${service.name}: `
        }${describePlacement(
          service,
        )}. Why it needs approval: ${approval.reasons
          .map(r => r.message)
          .join('; ')}.`,
        link: GOVERNANCE_PAGE_LINK,
        severity: 'high',
        topic: NOTIFICATION_TOPICS.approvals,
        scope: approvalScope(service.id),
        metadata: {
          serviceId: service.id,
          approvalId: approval.id,
          team: service.team,
        },
      },
    });
  }

  /**
   * An approval was decided: tell the requester (the team when a service, not a user, requested it), and replace
   * the approvers' pending notification with the outcome.
   */
  async decided(
    service: ServiceRecord,
    approval: ApprovalRecord,
  ): Promise<void> {
    const approved = approval.state === 'approved';
    const verb = approved ? 'approved' : 'rejected';
    const comment = approval.comment ? `: "${approval.comment}"` : '';
    const by = nameOf(approval.decidedBy);
    const subject = approval.kind === 'change' ? 'change of' : 'request for';
    const requester = isUserRef(approval.requestedBy)
      ? approval.requestedBy
      : teamGroup(service.team);
    const metadata = {
      serviceId: service.id,
      approvalId: approval.id,
      team: service.team,
      decision: approval.state,
      decidedBy: approval.decidedBy ?? null,
    };
    await Promise.all([
      this.send('decision', {
        recipients: { type: 'entity', entityRef: requester },
        payload: {
          title: `${approved ? 'Approved' : 'Rejected'}: ${service.name} (${
            service.team
          })`,
          description: `${by} ${verb} your ${subject} ${
            service.name
          }${comment}. ${
            approved
              ? afterApproval(service)
              : 'Its quota is released; nothing was deployed.'
          }`,
          link: entityPageLink(service),
          severity: approved ? 'normal' : 'high',
          topic: NOTIFICATION_TOPICS.services,
          scope: serviceScope(service.id),
          metadata,
        },
      }),
      this.send('decision for approvers', {
        recipients: { type: 'entity', entityRef: this.options.platformGroups },
        payload: {
          title: `${approved ? 'Approved' : 'Rejected'} by ${by}: ${
            service.name
          } (${service.team})`,
          description: `${by} ${verb} the ${subject} ${describePlacement(
            service,
          )}${comment}.`,
          link: GOVERNANCE_PAGE_LINK,
          severity: 'low',
          topic: NOTIFICATION_TOPICS.approvals,
          scope: approvalScope(service.id),
          metadata,
        },
      }),
    ]);
  }

  /** Applying (or tearing down) the service failed: tell its team and requester. */
  failed(service: ServiceRecord): Promise<void> {
    const teardown = (service.statusReason ?? '').startsWith('Teardown failed');
    return this.send('failure', {
      recipients: { type: 'entity', entityRef: this.ownersOf(service) },
      payload: {
        title: `${teardown ? 'Deleting' : 'Applying'} ${service.name} (${
          service.team
        }) failed`,
        // The reason may carry a cluster's error as it came (`connect ECONNREFUSED 10.0.0.1:6443`).
        description:
          withoutInternalAddresses(service.statusReason) ??
          `The service is failed${
            service.cluster ? ` in cluster ${service.cluster}` : ''
          }.`,
        link: entityPageLink(service),
        severity: 'high',
        topic: NOTIFICATION_TOPICS.services,
        scope: serviceScope(service.id),
        metadata: this.metadataOf(service),
      },
    });
  }

  /** The service's Deployment became available: tell its team and requester. */
  ready(service: ServiceRecord): Promise<void> {
    return this.send('readiness', {
      recipients: { type: 'entity', entityRef: this.ownersOf(service) },
      payload: {
        title: `${service.name} (${service.team}) is ready`,
        description: `${describePlacement(
          service,
        )}: its Deployment is available${
          service.cluster ? ` in cluster ${service.cluster}` : ''
        }.`,
        link: entityPageLink(service),
        severity: 'normal',
        topic: NOTIFICATION_TOPICS.services,
        scope: serviceScope(service.id),
        metadata: this.metadataOf(service),
      },
    });
  }

  /**
   * GitOps: the service's pull request was not merged in time, so Backstage closed it and released the quota: tell the
   * platform team (who may have been expected to review it) and the service's team and requester.
   */
  pullRequestExpired(service: ServiceRecord): Promise<void> {
    const pull = service.pullRequest;
    return this.send('pull request expiry', {
      recipients: {
        type: 'entity',
        entityRef: [...this.options.platformGroups, ...this.ownersOf(service)],
      },
      payload: {
        title: `Pull request of ${service.name} (${service.team}) not merged in time`,
        description: `${describePlacement(service)}: its pull request ${
          pull?.url ?? ''
        } was not merged in time. Backstage closed it, deleted the service and released its quota.`,
        link: pull?.url ?? entityPageLink(service),
        severity: 'high',
        topic: NOTIFICATION_TOPICS.services,
        scope: serviceScope(service.id),
        metadata: this.metadataOf(service),
      },
    });
  }

  /**
   * Tells the platform team and the service's owners that the pull request of a change of a GitOps service was not
   * merged in time: Backstage closed it and restored the service's previous spec and reservation.
   */
  changePullRequestExpired(service: ServiceRecord, url: string): Promise<void> {
    return this.send('pull request expiry', {
      recipients: {
        type: 'entity',
        entityRef: [...this.options.platformGroups, ...this.ownersOf(service)],
      },
      payload: {
        title: `Change of ${service.name} (${service.team}) not merged in time`,
        description: `${describePlacement(
          service,
        )}: the pull request ${url} of its change was not merged in time. Backstage closed it and restored the service's previous spec and quota reservation.`,
        link: url || entityPageLink(service),
        severity: 'high',
        topic: NOTIFICATION_TOPICS.services,
        scope: serviceScope(service.id),
        metadata: this.metadataOf(service),
      },
    });
  }

  /**
   * Publishes a change on `gpu:service-changes` to the browsers of the team's members and the platform groups'.
   * Recipients are group refs only: the signals backend gives a socket that sent no token the identity
   * `user:default/guest` with no groups, so no group reaches it.
   */
  async changed(signal: GpuServiceChangeSignal): Promise<void> {
    try {
      await this.options.signals.publish<GpuServiceChangeSignal>({
        recipients: {
          type: 'user',
          entityRef: [
            teamGroup(signal.team),
            ...this.options.platformGroups.filter(ref => /^group:/i.test(ref)),
          ],
        },
        channel: GPU_SERVICE_CHANGES_CHANNEL,
        message: signal,
      });
    } catch (error) {
      this.options.logger.warn('Publishing a GPU service signal failed', {
        error: String(error),
      });
    }
  }

  /** Resolves when every notification queued so far has been sent (or has failed and been logged). */
  flush(): Promise<void> {
    return this.queue;
  }

  private ownersOf(service: ServiceRecord): string[] {
    return [
      teamGroup(service.team),
      ...(isUserRef(service.createdBy) ? [service.createdBy] : []),
    ];
  }

  private metadataOf(service: ServiceRecord) {
    return {
      serviceId: service.id,
      team: service.team,
      status: service.status,
    };
  }

  /** Queues the send after the previous ones; resolves when it has been sent or has failed (logged). */
  private send(what: string, options: NotificationSendOptions): Promise<void> {
    const { notifications, logger } = this.options;
    const next = this.queue.then(async () => {
      try {
        await notifications.send(options);
      } catch (error) {
        logger.warn(`Sending the GPU ${what} notification failed`, {
          scope: options.payload.scope,
          error: String(error),
        });
      }
    });
    this.queue = next;
    return next;
  }
}
