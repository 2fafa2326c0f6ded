import { ConflictError } from '@backstage/errors';
import { RetriablePullRequestEnd } from '@gpu-platform/backstage-plugin-gpu-common';
import { Knex } from 'knex';
import {
  assess,
  decide,
  GovernanceContext,
  governanceReasons,
} from '../admission';
import { readAdmissionSnapshot } from './admissionSnapshot';
import { writeAuditEvent } from './audit';
import { lockPool } from './governance';
import { insertReservation, lockLedger } from './ledger';
import { serviceAuditView, ServiceRow, toJson } from './rows';
import {
  checkVersion,
  lockService,
  nextUpdatedAt,
  readService,
  statusColumns,
} from './services';
import {
  Amounts,
  RetryPullRequestInput,
  RetryPullRequestResult,
  ServiceRecord,
} from './types';

/**
 * How a GitOps service's last pull request ended when that end can be retried through a new request: closed without
 * merging (`PullRequestClosed`), not merged in time (`PullRequestExpired`), or never confirmed with its request (the
 * template run that opened it stopped before its confirm step: deleted when `confirmBy` passed). Undefined for any
 * other service, a GitOps one deleted on purpose included (a decommission is not undone by a retry).
 */
export function retriablePullRequestEnd(
  service: Pick<
    ServiceRecord,
    | 'mode'
    | 'status'
    | 'reason'
    | 'confirmBy'
    | 'statusChangedAt'
    | 'pullRequest'
  >,
): RetriablePullRequestEnd | undefined {
  if (service.mode !== 'gitops' || service.status !== 'deleted') {
    return undefined;
  }
  if (service.reason === 'PullRequestClosed') return 'closed';
  if (service.reason === 'PullRequestExpired') return 'expired';
  if (
    service.reason === 'Deleted' &&
    service.pullRequest === undefined &&
    service.confirmBy !== undefined &&
    Date.parse(service.confirmBy) <= Date.parse(service.statusChangedAt)
  ) {
    return 'unconfirmed';
  }
  return undefined;
}

/**
 * Retries a GitOps service whose pull request will never be merged ({@link retriablePullRequestEnd}): weighs it again
 * against the team's quota, budget, the pool's capacity and policy as a creation is, then, in one write, holds a new
 * reservation, records the spec and manifests rendered again, the status `approved` (`RenderedForGitOps`), the
 * `confirmBy` its new request must be confirmed by, and forgets the last request (the new one is recorded by the
 * confirmation, `confirmServiceInTransaction`); audited as `service.retry` and `service.status`. Conditional on the
 * version the retry was computed from (`expectedUpdatedAt`). Refused with a `ConflictError`, nothing written or held,
 * when the service cannot be retried so, another live service has its name in its namespace, or admission refuses
 * it or would make it wait for an approver (request it anew with the creation template then).
 */
export async function retryPullRequestInTransaction(
  tx: Knex.Transaction,
  input: RetryPullRequestInput,
  amounts: Amounts,
  context: GovernanceContext,
): Promise<RetryPullRequestResult> {
  const team = (await readService(tx, input.serviceId)).team;
  const ledger = await lockLedger(tx, team, input.change.pool);
  const before = await lockService(tx, input.serviceId);
  checkVersion(before, input.expectedUpdatedAt);
  const ended = retriablePullRequestEnd(before);
  if (!ended) {
    throw new ConflictError(
      `Service '${before.name}' is ${before.status} (${before.reason}); only a GitOps service whose pull request ` +
        'was closed without merging, not merged in time or never confirmed can be retried through a new one',
    );
  }
  const live = await tx<ServiceRow>('services')
    .where({ namespace: before.namespace, name: before.name })
    .whereNotIn('status', ['deleted', 'rejected'])
    .whereNot({ id: before.id })
    .first();
  if (live) {
    throw new ConflictError(
      `A live service named '${before.name}' exists in namespace '${before.namespace}' (${live.id}); ` +
        `${before.name} cannot be retried beside it`,
    );
  }
  await lockPool(tx, input.change.pool);
  const now = context.now();
  const snapshot = await readAdmissionSnapshot(tx, context, { ledger, now });
  const assessment = assess(
    context,
    snapshot,
    amounts,
    input.change.placement.migProfile,
  );
  const decision = decide(
    context,
    input.policy,
    assessment,
    governanceReasons(context, before.environment, input.change.pool),
  );
  if (decision.pending) {
    throw new ConflictError(
      `Retrying '${
        before.name
      }' would need the platform team's approval: ${decision.reasons
        .map(r => r.message)
        .join(
          '; ',
        )}. Nothing is reserved; request the service anew with the creation template to ask for approval`,
    );
  }
  const reservation = await insertReservation(tx, {
    service: before,
    pool: input.change.pool,
    migProfile: input.change.placement.migProfile,
    amounts,
    state: 'held',
    now,
    actor: input.actor,
  });
  const updatedAt = nextUpdatedAt(before, now);
  await tx<ServiceRow>('services')
    .where({ id: before.id })
    .update({
      generation: before.generation + 1,
      tier: input.change.tier,
      pool: input.change.pool,
      ...(input.change.cluster !== undefined && {
        cluster: input.change.cluster,
      }),
      moving_from_cluster: null,
      request: JSON.stringify(input.change.request),
      placement: JSON.stringify(input.change.placement),
      ...(input.change.quote !== undefined && {
        quote: toJson(input.change.quote),
      }),
      manifests: toJson(input.change.manifests),
      ...statusColumns(
        before,
        {
          status: 'approved',
          reason: 'RenderedForGitOps',
          statusReason: input.statusReason,
        },
        updatedAt,
      ),
      // A transition even when the last status was written with the same reason code.
      status_changed_at: updatedAt,
      confirm_by: input.confirmBy,
      pull_request_url: null,
      pull_request_number: null,
      pull_request_state: null,
      merge_by: null,
      updated_by: input.actor,
      updated_at: updatedAt,
    });
  const service = await readService(tx, before.id);
  for (const action of ['service.retry', 'service.status']) {
    await writeAuditEvent(tx, {
      actor: input.actor,
      action,
      subjectType: 'service',
      subjectId: before.id,
      team: before.team,
      before: serviceAuditView(before),
      after: {
        ...serviceAuditView(service),
        ...(action === 'service.retry' && { retriedAfter: ended }),
      },
    });
  }
  return { service, reservation, ended };
}
