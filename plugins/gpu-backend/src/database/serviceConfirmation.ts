import { ConflictError, InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { writeAuditEvent } from './audit';
import { ServiceRow, toServiceRecord } from './rows';
import { confirmChangeInTransaction, pendingChangeOf } from './serviceChanges';
import { lockService, nextUpdatedAt, readService } from './services';
import { PullRequestState, ServiceRecord } from './types';

/** Statuses a provisional service can no longer be confirmed from: its confirmation expired, or it was deleted. */
const GONE = new Set(['deleting', 'deleted']);

/**
 * Confirms a provisional service (clears `confirm_by`), audited as `service.confirm`. Confirming a confirmed service
 * changes nothing; one being deleted or deleted (its confirmation expired, or someone deleted it) is a conflict.
 *
 * With `pullRequest` (a GitOps service, confirmed by the template run that opened its pull request), the request is
 * recorded as `open` with its deadline `mergeBy`, in the same write: from then on the reservation follows it (see
 * `GitOpsFollower`). A service that is not in GitOps mode cannot have one (input error); one that has a different
 * request already is a conflict; the same request again changes nothing. A service with a change pending until its
 * pull request is merged has that change confirmed instead (`confirmChangeInTransaction`).
 */
export async function confirmServiceInTransaction(
  tx: Knex.Transaction,
  input: {
    id: string;
    actor: string;
    now: Date;
    pullRequest?: { url: string; number: number; mergeBy: Date };
  },
): Promise<ServiceRecord> {
  const service = await lockService(tx, input.id);
  if (GONE.has(service.status)) {
    const expired =
      service.confirmBy && Date.parse(service.confirmBy) <= input.now.getTime();
    const why = expired ? `: it was not confirmed by ${service.confirmBy}` : '';
    throw new ConflictError(
      `Service '${service.name}' is ${service.status} and can no longer be confirmed${why}`,
    );
  }
  const { pullRequest } = input;
  const change = await pendingChangeOf(tx, service.id);
  if (change) {
    // The template run that made a change pending until its pull request is merged confirms that change.
    await confirmChangeInTransaction(tx, service, change, input);
    return readService(tx, service.id);
  }
  if (pullRequest && service.mode !== 'gitops') {
    throw new InputError(
      `Service '${service.name}' is in ${service.mode} mode: only a GitOps service is delivered by a pull request`,
    );
  }
  if (pullRequest && service.pullRequest) {
    if (service.pullRequest.url !== pullRequest.url) {
      throw new ConflictError(
        `Service '${service.name}' already follows pull request ${service.pullRequest.url}`,
      );
    }
  }
  const recordPullRequest = pullRequest && !service.pullRequest;
  if (!service.confirmBy && !recordPullRequest) {
    return service;
  }
  await tx<ServiceRow>('services')
    .where({ id: service.id })
    .update({
      confirm_by: null,
      ...(recordPullRequest && {
        pull_request_url: pullRequest.url,
        pull_request_number: pullRequest.number,
        pull_request_state: 'open' satisfies PullRequestState,
        merge_by: pullRequest.mergeBy,
      }),
      updated_by: input.actor,
      updated_at: nextUpdatedAt(service, input.now),
    });
  const confirmed = await readService(tx, service.id);
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'service.confirm',
    subjectType: 'service',
    subjectId: service.id,
    team: service.team,
    before: {
      confirmBy: service.confirmBy ?? null,
      pullRequest: service.pullRequest ?? null,
    },
    after: { confirmBy: null, pullRequest: confirmed.pullRequest ?? null },
  });
  return confirmed;
}

/**
 * Records what the forge said of an open pull request (`merged`, `closed` without merging, `expired`: closed by the
 * backend past `merge_by`), audited as `service.pull-request`. Conditional on the request still being open: undefined
 * when another replica settled it first. The status and the reservation are the caller's (a teardown), not this.
 */
export async function settlePullRequestInTransaction(
  tx: Knex.Transaction,
  input: {
    id: string;
    state: Exclude<PullRequestState, 'open'>;
    actor: string;
    now: Date;
  },
): Promise<ServiceRecord | undefined> {
  const service = await lockService(tx, input.id);
  if (service.pullRequest?.state !== 'open') {
    return undefined;
  }
  await tx<ServiceRow>('services')
    .where({ id: service.id })
    .update({
      pull_request_state: input.state,
      merge_by: null,
      updated_by: input.actor,
      updated_at: nextUpdatedAt(service, input.now),
    });
  const settled = await readService(tx, service.id);
  await writeAuditEvent(tx, {
    actor: input.actor,
    action: 'service.pull-request',
    subjectType: 'service',
    subjectId: service.id,
    team: service.team,
    before: { pullRequest: service.pullRequest },
    after: { pullRequest: settled.pullRequest ?? null },
  });
  return settled;
}

/** Services whose pull request is open, whatever their status, earliest deadline first. */
export async function listOpenPullRequests(db: Knex): Promise<ServiceRecord[]> {
  const rows = await db<ServiceRow>('services')
    .where('pull_request_state', 'open')
    .orderBy('merge_by', 'asc')
    .limit(500);
  return rows.map(toServiceRecord);
}

/** Provisional services whose confirmation time has passed and that are not being deleted yet, oldest first. */
export async function listUnconfirmedServices(
  db: Knex,
  before: Date,
): Promise<ServiceRecord[]> {
  const rows = await db<ServiceRow>('services')
    .whereNotNull('confirm_by')
    .where('confirm_by', '<=', before)
    .whereNotIn('status', [...GONE])
    .orderBy('confirm_by', 'asc')
    .limit(500);
  return rows.map(toServiceRecord);
}
