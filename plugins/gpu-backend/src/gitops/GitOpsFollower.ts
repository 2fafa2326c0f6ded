import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { HumanDuration } from '@backstage/types';
import type { GpuStore, ServiceChangeRecord, ServiceRecord } from '../database';
import type { ServiceManager } from '../services/ServiceManager';
import type { Forges } from './forges';

/** Id of the scheduled task that follows GitOps services' pull requests and prunes. */
export const GITOPS_FOLLOW_TASK_ID = 'gpu-gitops-follow';

/** Actor of what the follower records (audit trail). */
export const GITOPS_FOLLOW_ACTOR = 'system:gpu-gitops-follow';

/** What one round of {@link GitOpsFollower.follow} did, per service id. */
export interface GitOpsFollowRound {
  merged: string[];
  /** Closed without merging: rolled back. */
  closed: string[];
  /** Not merged by `mergeBy`: closed by the backend and rolled back. */
  expired: string[];
  /** Deleted in Backstage while its request was open: the request closed. */
  withdrawn: string[];
  /** Decommissions whose objects are gone from the cluster: deleted, quota released. */
  pruned: string[];
  /** Requests or clusters that could not be read this round (tried again next round). */
  errors: Array<{ serviceId: string; error: string }>;
}

/** The platform team is told of an expired request (a {@link GpuNotifier}, or a fake in tests). */
export interface PullRequestExpiryNotifier {
  pullRequestExpired(service: ServiceRecord): Promise<void>;
  /** A change's request expired: closed, and the service's previous spec and reservation restored. */
  changePullRequestExpired?(service: ServiceRecord, url: string): Promise<void>;
}

/**
 * Makes the reservations of GitOps services follow their pull requests and their cluster, one round at a time:
 *
 * - an open request that was merged: recorded `merged` (the reservation is kept);
 * - closed without merging: recorded `closed`, the service deleted with reason `PullRequestClosed` and its quota
 *   released (rolled back);
 * - still open at its `mergeBy` (`gpu.gitops.mergeWithin` after the confirmation): closed on the forge with a comment,
 *   recorded `expired`, the service deleted with reason `PullRequestExpired` and its quota released, and the platform
 *   team notified; a request merged just before the close is recorded merged instead;
 * - open while its service was deleted in Backstage: closed with a comment (nothing of it must be merged);
 * - a change pending until its pull request is merged (PATCH with `provisional`): kept once merged; closed unmerged or
 *   not merged by its `mergeBy`, the service's previous spec and reservation are restored (see `followChange`);
 * - a decommission `AwaitingPrune`: once its cluster, read with a read-only credential, has none of its objects, the
 *   service is deleted and its quota released.
 *
 * Each record is a conditional write, so replicas running a round at once settle each request once.
 */
export class GitOpsFollower {
  constructor(
    private readonly options: {
      store: Pick<
        GpuStore,
        | 'listOpenPullRequests'
        | 'settlePullRequest'
        | 'listServices'
        | 'listPendingChanges'
        | 'settleChange'
        | 'getService'
      >;
      services: Pick<
        ServiceManager,
        'rollBackPullRequest' | 'completePrune' | 'rollBackChange'
      >;
      forges: Pick<Forges, 'resolve'>;
      notifier?: PullRequestExpiryNotifier;
      logger: LoggerService;
      now?: () => Date;
    },
  ) {}

  async follow(): Promise<GitOpsFollowRound> {
    const round: GitOpsFollowRound = {
      merged: [],
      closed: [],
      expired: [],
      withdrawn: [],
      pruned: [],
      errors: [],
    };
    for (const service of await this.options.store.listOpenPullRequests()) {
      try {
        await this.followOne(service, round);
      } catch (error) {
        round.errors.push({ serviceId: service.id, error: String(error) });
      }
    }
    for (const change of await this.options.store.listPendingChanges()) {
      if (!change.pullRequest) continue;
      try {
        await this.followChange(change, round);
      } catch (error) {
        round.errors.push({
          serviceId: change.serviceId,
          error: String(error),
        });
      }
    }
    const deleting = await this.options.store.listServices({
      status: 'deleting',
    });
    for (const service of deleting) {
      if (service.mode !== 'gitops' || service.reason !== 'AwaitingPrune') {
        continue;
      }
      try {
        const done = await this.options.services.completePrune(
          service.id,
          GITOPS_FOLLOW_ACTOR,
        );
        if (done?.remaining === 0) round.pruned.push(service.id);
      } catch (error) {
        round.errors.push({ serviceId: service.id, error: String(error) });
      }
    }
    if (round.errors.length) {
      this.options.logger.warn(
        'Following GitOps pull requests or prunes failed for some services; trying again next round',
        { errors: JSON.stringify(round.errors) },
      );
    }
    return round;
  }

  private async followOne(service: ServiceRecord, round: GitOpsFollowRound) {
    const pull = service.pullRequest!;
    const { client, ref } = this.options.forges.resolve(pull.url);
    const gone = service.status === 'deleted' || service.status === 'deleting';
    let state = await client.state(ref);
    if (state === 'open' && gone) {
      state = await client.close(
        ref,
        `The GPU service ${service.name} (${service.team}) was deleted in Backstage before this was merged; closed by Backstage.`,
      );
      if (state !== 'merged') {
        await this.settle(service, 'closed');
        round.withdrawn.push(service.id);
        return;
      }
    }
    const expired =
      pull.mergeBy !== undefined &&
      Date.parse(pull.mergeBy) <= this.now().getTime();
    if (state === 'open' && expired) {
      state = await client.close(
        ref,
        `Not merged by ${pull.mergeBy}: the quota reserved for the GPU service ${service.name} (${service.team}) ` +
          'is released and the request closed by Backstage. Run the template again to request it anew.',
      );
      if (state !== 'merged') {
        // Rolled back first, recorded after: a round that stops in between finds the request closed next time.
        const rolledBack = await this.options.services.rollBackPullRequest(
          service.id,
          'PullRequestExpired',
          GITOPS_FOLLOW_ACTOR,
        );
        await this.settle(service, 'expired');
        round.expired.push(service.id);
        if (rolledBack) {
          await this.options.notifier?.pullRequestExpired(rolledBack);
        }
        return;
      }
    }
    if (state === 'merged') {
      if (await this.settle(service, 'merged')) round.merged.push(service.id);
      return;
    }
    if (state === 'closed') {
      if (!gone) {
        await this.options.services.rollBackPullRequest(
          service.id,
          'PullRequestClosed',
          GITOPS_FOLLOW_ACTOR,
        );
      }
      await this.settle(service, 'closed');
      round.closed.push(service.id);
    }
  }

  /**
   * A change pending until its pull request is merged: merged, it is kept (`merged`); closed unmerged, or still open
   * at its `mergeBy` (then closed here with a comment), the service's previous spec and reservation are restored
   * (`closed`, `expired`; reasons `ChangePullRequestClosed`, `ChangePullRequestExpired`); open while its service was
   * deleted in Backstage, the request is closed with a comment and the change withdrawn (nothing restored).
   */
  private async followChange(
    change: ServiceChangeRecord,
    round: GitOpsFollowRound,
  ) {
    const pull = change.pullRequest!;
    const { client, ref } = this.options.forges.resolve(pull.url);
    const service = await this.options.store.getService(change.serviceId);
    const name = service
      ? `${service.name} (${service.team})`
      : change.serviceId;
    const gone =
      !service || service.status === 'deleted' || service.status === 'deleting';
    let state = await client.state(ref);
    if (gone) {
      if (state === 'open') {
        state = await client.close(
          ref,
          `The GPU service ${name} was deleted in Backstage before this change was merged; closed by Backstage.`,
        );
      }
      if (
        await this.options.store.settleChange({
          changeId: change.id,
          state: state === 'merged' ? 'merged' : 'withdrawn',
          actor: GITOPS_FOLLOW_ACTOR,
        })
      ) {
        (state === 'merged' ? round.merged : round.withdrawn).push(
          change.serviceId,
        );
      }
      return;
    }
    const expired =
      pull.mergeBy !== undefined &&
      Date.parse(pull.mergeBy) <= this.now().getTime();
    if (state === 'open' && expired) {
      state = await client.close(
        ref,
        `Not merged by ${pull.mergeBy}: this change of the GPU service ${name} is rolled back (its previous spec ` +
          'and quota reservation restored) and the request closed by Backstage. Run the change template again to ' +
          'request it anew.',
      );
      if (state !== 'merged') {
        const restored = await this.options.services.rollBackChange(
          change,
          'expired',
          GITOPS_FOLLOW_ACTOR,
        );
        if (restored) {
          round.expired.push(change.serviceId);
          await this.options.notifier?.changePullRequestExpired?.(
            restored,
            pull.url,
          );
        }
        return;
      }
    }
    if (state === 'merged') {
      if (
        await this.options.store.settleChange({
          changeId: change.id,
          state: 'merged',
          actor: GITOPS_FOLLOW_ACTOR,
        })
      ) {
        round.merged.push(change.serviceId);
      }
      return;
    }
    if (state === 'closed') {
      if (
        await this.options.services.rollBackChange(
          change,
          'closed',
          GITOPS_FOLLOW_ACTOR,
        )
      ) {
        round.closed.push(change.serviceId);
      }
    }
  }

  private async settle(
    service: ServiceRecord,
    state: 'merged' | 'closed' | 'expired',
  ): Promise<boolean> {
    const settled = await this.options.store.settlePullRequest({
      id: service.id,
      state,
      actor: GITOPS_FOLLOW_ACTOR,
    });
    return settled !== undefined;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}

/**
 * Schedules {@link GitOpsFollower.follow} every `frequency` (`gpu.gitops.checkFrequency`, once a minute by default), on
 * one replica at a time.
 */
export async function scheduleGitOpsFollower(options: {
  scheduler: SchedulerService;
  follower: Pick<GitOpsFollower, 'follow'>;
  logger: LoggerService;
  frequency: HumanDuration;
}): Promise<void> {
  const { scheduler, follower, logger, frequency } = options;
  await scheduler.scheduleTask({
    id: GITOPS_FOLLOW_TASK_ID,
    frequency,
    timeout: { minutes: 5 },
    initialDelay: { seconds: 10 },
    scope: 'global',
    fn: async () => {
      const round = await follower.follow();
      const settled = [
        ...round.merged.map(id => `${id}:merged`),
        ...round.closed.map(id => `${id}:closed`),
        ...round.expired.map(id => `${id}:expired`),
        ...round.withdrawn.map(id => `${id}:withdrawn`),
        ...round.pruned.map(id => `${id}:pruned`),
      ];
      if (settled.length) {
        logger.info('Followed GitOps pull requests and prunes', {
          services: settled.join(', '),
        });
      }
    },
  });
}
