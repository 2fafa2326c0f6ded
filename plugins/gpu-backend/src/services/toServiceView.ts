import {
  ApprovalView,
  formatUsd,
  GpuServiceChangeSpec,
  GpuServicePendingChange,
  GpuServiceView,
  serviceConditions,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  RUNTIME_PORTS,
  serviceObjectNames,
  WAKE_ENDPOINT_ANNOTATION,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { awaitingApprovalReason } from '../admission';
import {
  ApprovalRecord,
  ReservationRecord,
  ServiceChangeRecord,
  ServiceListing,
  ServiceRecord,
} from '../database';
import { retriablePullRequestEnd } from '../database/serviceRetry';

/** Annotation on a catalog Component naming the gpu service behind it. */
export const SERVICE_ID_ANNOTATION = 'gpu.backstage.io/service-id';

/**
 * Where users call a service: its Service's in-cluster URL, or, when it scales to zero through KEDA's HTTP add-on (its
 * manifests hold an HTTPScaledObject), the interceptor's URL the HTTPScaledObject is annotated with and the host it
 * routes by, so a request wakes the service instead of finding no pod behind its Service.
 */
function serviceEndpoint(
  service: ServiceRecord,
  serviceName: string,
  port: number,
): Pick<GpuServiceView, 'endpoint' | 'endpointHost'> {
  const host = `${serviceName}.${service.namespace}.svc.cluster.local`;
  const wake = service.manifests?.find(m => m.kind === 'HTTPScaledObject') as
    | { metadata?: { annotations?: Record<string, string> } }
    | undefined;
  const interceptor = wake?.metadata?.annotations?.[WAKE_ENDPOINT_ANNOTATION];
  return interceptor
    ? { endpoint: interceptor, endpointHost: host }
    : { endpoint: `http://${host}:${port}` };
}

/** What a change may alter, of a spec: its tier, pool, cluster, model and replicas. */
function changeSpecOf(
  spec: Pick<ServiceRecord, 'tier' | 'pool' | 'cluster' | 'request'>,
): GpuServiceChangeSpec {
  return {
    tier: spec.tier,
    pool: spec.pool,
    ...(spec.cluster !== undefined && { cluster: spec.cluster }),
    model: spec.request.model,
    replicas: spec.request.replicas,
  };
}

/**
 * The API's view of a GitOps change pending until its pull request is merged: its request (or when it must be
 * recorded by), who made it and when, and what it changes, from the typed spec it recorded as the previous one and the
 * service's spec (the proposed one).
 */
export function toPendingChangeView(
  service: ServiceRecord,
  change: ServiceChangeRecord,
): GpuServicePendingChange {
  return {
    generation: change.generation,
    ...(change.pullRequest && { pullRequest: change.pullRequest }),
    ...(change.confirmBy !== undefined && { confirmBy: change.confirmBy }),
    createdBy: change.createdBy,
    createdAt: change.createdAt,
    previous: changeSpecOf(change.previous),
    proposed: changeSpecOf(service),
  };
}

function retriableEndOf(
  service: ServiceRecord,
): Pick<GpuServiceView, 'retriableEnd'> {
  const ended = retriablePullRequestEnd(service);
  return ended ? { retriableEnd: ended } : {};
}

/** The API's view of a stored service (with its pending GitOps change, when there is one). */
export function toServiceView(
  service: ServiceRecord,
  reservation?: ReservationRecord,
  approval?: ApprovalRecord,
  pendingChange?: ServiceChangeRecord,
): GpuServiceView {
  const names = serviceObjectNames(service.request.name);
  const port = RUNTIME_PORTS[service.request.runtime];
  return {
    id: service.id,
    name: service.name,
    team: service.team,
    namespace: service.namespace,
    entityRef: service.entityRef,
    environment: service.environment,
    status: service.status,
    reason: service.reason,
    statusReason: service.statusReason,
    generation: service.generation,
    ...(service.observedGeneration !== undefined && {
      observedGeneration: service.observedGeneration,
    }),
    conditions: serviceConditions(service),
    request: service.request,
    placement: service.placement,
    gpuEquivalents: reservation?.gpuEquivalents ?? 0,
    monthlyCost: formatUsd(reservation?.monthlyCostMicros ?? 0),
    cluster: service.cluster,
    ...(service.movingFrom !== undefined && {
      movingFrom: service.movingFrom,
    }),
    mode: service.mode,
    ...serviceEndpoint(service, names.service, port),
    annotations: {
      'backstage.io/kubernetes-id': service.name,
      'backstage.io/kubernetes-namespace': service.namespace,
      // The Kubernetes plugin's service locator looks for the entity's objects on this cluster only.
      ...(service.cluster !== undefined && {
        'backstage.io/kubernetes-cluster': service.cluster,
      }),
      [SERVICE_ID_ANNOTATION]: service.id,
    },
    ...(approval ? { approval: toApprovalView(approval) } : {}),
    ...(service.confirmBy ? { confirmBy: service.confirmBy } : {}),
    ...(service.pullRequest ? { pullRequest: service.pullRequest } : {}),
    ...(pendingChange?.serviceId === service.id &&
      pendingChange.state === 'pending' && {
        pendingChange: toPendingChangeView(service, pendingChange),
      }),
    ...retriableEndOf(service),
    createdBy: service.createdBy,
    createdAt: service.createdAt,
    updatedAt: service.updatedAt,
  };
}

/**
 * The view of a service from all its reservations (newest first) and approvals (oldest first): the reservation
 * that counts (held, else pending, else the oldest) and the latest approval; with its pending GitOps change, if any.
 */
export function toServiceViewFromLedger(
  service: ServiceRecord,
  reservations: ReservationRecord[],
  approvals: ApprovalRecord[],
  pendingChange?: ServiceChangeRecord,
): GpuServiceView {
  const current =
    reservations.find(r => r.state === 'held') ??
    reservations.find(r => r.state === 'pending') ??
    reservations[reservations.length - 1];
  return toServiceView(
    service,
    current,
    approvals[approvals.length - 1],
    pendingChange,
  );
}

/**
 * The service with the status line of `approval` as given: a service waiting for approval to be created says why it
 * needs an approver as the approval does. Given an approval weighed again now (`GpuStore.previewApprovals`), a
 * quota or budget raised since the request drops its over-quota or over-budget words from the status line, as from
 * the approval's reasons. Any other service is returned as it is.
 */
export function withApprovalStatusReason(
  service: ServiceRecord,
  approval: ApprovalRecord | undefined,
): ServiceRecord {
  if (
    service.status !== 'pending-approval' ||
    service.reason !== 'AwaitingApproval' ||
    approval?.state !== 'pending' ||
    approval.kind !== 'create'
  ) {
    return service;
  }
  return { ...service, statusReason: awaitingApprovalReason(approval.reasons) };
}

/**
 * The view of a listed service with its approvals as weighed again now (`weighed`, by id, as
 * `GpuStore.previewApprovals` answers them; one not in it as recorded), and the status line of its latest one
 * ({@link withApprovalStatusReason}): what GET /services/:id answers, for a list weighed on one read.
 */
export function toServiceViewWeighed(
  listing: ServiceListing,
  weighed: ReadonlyMap<string, ApprovalRecord>,
): GpuServiceView {
  const approvals = listing.approvals.map(a => weighed.get(a.id) ?? a);
  return toServiceViewFromLedger(
    withApprovalStatusReason(listing.service, approvals[approvals.length - 1]),
    listing.reservations,
    approvals,
    listing.pendingChange,
  );
}

export function toApprovalView(approval: ApprovalRecord): ApprovalView {
  return {
    id: approval.id,
    serviceId: approval.serviceId,
    team: approval.team,
    kind: approval.kind,
    state: approval.state,
    reasons: approval.reasons,
    requestedBy: approval.requestedBy,
    requestedAt: approval.requestedAt,
    decidedBy: approval.decidedBy,
    decidedAt: approval.decidedAt,
    comment: approval.comment,
    ...(approval.overage ? { overage: approval.overage } : {}),
  };
}
