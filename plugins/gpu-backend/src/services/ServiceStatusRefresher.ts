import type { KubernetesObject } from '@kubernetes/client-node';
import { LoggerService } from '@backstage/backend-plugin-api';
import { NotFoundError } from '@backstage/errors';
import {
  ServiceClusterStatus,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { serviceObjectNames } from '@gpu-platform/backstage-plugin-gpu-node';
import { ClusterStatusReader, ObjectRef } from '../cluster';
import { describeRef, refOf } from '../cluster/objectRef';
import { GpuStore, ServiceChangeRecord, ServiceRecord } from '../database';
import type { RunPeriodStore } from '../database/runPeriods';
import { observeRun } from './runObservation';
import { compareAndSet, getService } from './serviceStatusWrite';
import {
  decideStatus,
  REFRESHED_STATUSES,
  StatusChange,
  unlessAlready,
} from './statusTransition';

/** Actor of the status changes the cluster's state causes (audit trail). */
export const STATUS_REFRESH_ACTOR = 'system:gpu-status-refresh';

/** Services the scheduled refresh reads at the same time. */
const REFRESH_BATCH = 4;

/**
 * Reads and writes of one refresh: a write that loses its compare-and-set to another writer (the reconciler, another
 * replica) reads the cluster again and decides from the version that won, so the answer's status and cluster status
 * come from one read.
 */
const REFRESH_ATTEMPTS = 3;

/** Statuses in which a service in apply mode may have objects in its cluster, so its cluster status is read. */
const IN_CLUSTER_STATUSES: ServiceStatus[] = [
  'applying',
  'starting',
  'ready',
  'failed',
  'deleting',
];

/**
 * Statuses in which a GitOps service may have objects in its cluster, once its pull request is merged (or it has
 * none): `approved` until its controller has applied it, then `starting` and `ready` as in apply mode.
 */
const GITOPS_READ_STATUSES: ServiceStatus[] = [
  'approved',
  'starting',
  'ready',
  'deleting',
];

/** Collaborators and settings of {@link ServiceStatusRefresher}. */
export interface ServiceStatusRefresherOptions {
  store: GpuStore;
  /** Reads the cluster status of services in apply mode on the default cluster (same cluster as the applier). */
  statusReader?: ClusterStatusReader;
  /** The status reader of every `apply` cluster by name: each service is read on the cluster it records. */
  statusReaders?: ReadonlyMap<string, ClusterStatusReader>;
  /**
   * The status reader of every `gitops` cluster read with a (read-only) credential, by name: GitOps services are read
   * through these only (one recorded in GitOps mode on a cluster Backstage applies to is not read).
   */
  gitopsStatusReaders?: ReadonlyMap<string, ClusterStatusReader>;
  logger: LoggerService;
  /** Where the periods the workloads ran are recorded (what cost accrues over); none recorded when omitted. */
  runs?: RunPeriodStore;
  /** Longest wait for one live status read; 5 s when omitted. */
  statusReadTimeoutMs?: number;
  /**
   * Applies a `starting` or `ready` service again whose objects drifted from its stored manifests (its Deployment
   * deleted, or scaled by hand); without it drift is only reported through the status.
   */
  repair?: (service: ServiceRecord, why: string) => Promise<ServiceRecord>;
  /**
   * The last step of a move between clusters, for a service the refresh finds `ready` on its new cluster while it
   * still records the cluster it left (`movingFrom`): removes it from there (see `ServiceManager.completeMove`).
   * Without it a moving service keeps its objects on both clusters.
   */
  completeMove?: (service: ServiceRecord) => Promise<ServiceRecord>;
  /** Clock (tests). */
  now?: () => Date;
}

/** Outcome of {@link ServiceStatusRefresher.refreshStatus}. */
export interface StatusRefresh {
  /** The service after the refresh (changed or not). */
  service: ServiceRecord;
  /** What the cluster says; undefined for services that have nothing in a cluster Backstage reads. */
  clusterStatus?: ServiceClusterStatus;
  /** Whether this refresh changed the stored status or reason. */
  changed: boolean;
}

/** One attempt of a refresh: whether its write lost the compare-and-set (the service changed after it was read). */
type RefreshAttempt = StatusRefresh & { lostRace?: boolean };

/** Outcome of {@link ServiceStatusRefresher.refreshStatuses}. */
export interface StatusRefreshSummary {
  /** `starting` and `ready` services read. */
  checked: number;
  /** Ids of the services whose status or reason changed. */
  changed: string[];
  /** Ids of the services whose cluster could not be read (status unchanged). */
  unreadable: string[];
}

/**
 * Reads what the cluster says about GPU services in apply mode and refreshes their stored statuses from it
 * (`GET /services/:id` and the scheduled `gpu-status-refresh`); every write is a compare-and-set.
 */
export class ServiceStatusRefresher {
  private readonly statusReadTimeoutMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: ServiceStatusRefresherOptions) {
    this.statusReadTimeoutMs = options.statusReadTimeoutMs ?? 5_000;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Reads what the cluster says about a service in apply mode, within the status read timeout. Undefined for
   * services with nothing in a cluster Backstage reads (dry-run, GitOps, not yet applied, deleted). A cluster that
   * cannot be read in time gives `{ cluster, observedAt, error }`, never an exception.
   */
  async readClusterStatus(
    service: ServiceRecord,
  ): Promise<ServiceClusterStatus | undefined> {
    return (await this.readLive(service))?.clusterStatus;
  }

  /** The reader of the service's cluster, when Backstage reads that cluster. */
  private readerOf(service: ServiceRecord): ClusterStatusReader | undefined {
    const { statusReader, statusReaders } = this.options;
    if (service.mode === 'gitops') {
      return service.cluster !== undefined
        ? this.options.gitopsStatusReaders?.get(service.cluster)
        : undefined;
    }
    if (service.cluster !== undefined && statusReaders?.has(service.cluster)) {
      return statusReaders.get(service.cluster);
    }
    return statusReader &&
      (service.cluster === undefined ||
        service.cluster === statusReader.cluster)
      ? statusReader
      : undefined;
  }

  /** The cluster status, and whether a failed read means the cluster cannot be reached (not a refusal). */
  private async readLive(
    service: ServiceRecord,
  ): Promise<
    { clusterStatus: ServiceClusterStatus; unreachable: boolean } | undefined
  > {
    const { logger } = this.options;
    const statusReader = this.readerOf(service);
    if (!statusReader || !readsInCluster(service)) {
      return undefined;
    }
    const observedAt = this.now().toISOString();
    const { deployment } = serviceObjectNames(service.request.name);
    try {
      return {
        clusterStatus: await withTimeout(
          statusReader.read({
            serviceId: service.id,
            namespace: service.namespace,
            deployment,
            others: otherObjectsOf(service, deployment),
          }),
          this.statusReadTimeoutMs,
          `no answer within ${this.statusReadTimeoutMs} ms`,
        ),
        unreachable: false,
      };
    } catch (error) {
      logger.warn('Reading the cluster status of a GPU service failed', {
        serviceId: service.id,
        cluster: statusReader.cluster,
        error: String(error),
      });
      return {
        clusterStatus: {
          cluster: statusReader.cluster,
          observedAt,
          // The service's status stays the last one stored, or says its cluster is unreachable (the API documents it).
          error: `The cluster '${statusReader.cluster}' could not be read: ${
            (error as Error).message
          }`,
        },
        unreachable: isUnreachable(error),
      };
    }
  }

  /**
   * Reads the service's cluster status and, for a `starting` or `ready` service, stores what it implies: `ready`
   * when the Deployment is available, else `starting` with why (Kueue's pending message, a failing pod, ...). The
   * write is conditional on the status and `updatedAt` it was computed from, so what it read is never written over a
   * service changed, re-applied or deleted meanwhile: the refresh reads that version and its cluster again and
   * decides from them (at most {@link REFRESH_ATTEMPTS} reads). Used by `GET /services/:id` and the scheduled refresh.
   */
  async refreshStatus(
    id: string,
    actor: string = STATUS_REFRESH_ACTOR,
  ): Promise<StatusRefresh> {
    for (let attempt = 1; ; attempt++) {
      const { lostRace, ...refresh } = await this.refreshOnce(id, actor);
      if (!lostRace || attempt === REFRESH_ATTEMPTS) return refresh;
    }
  }

  /** One read of the service and its cluster, and the conditional write it implies. */
  private async refreshOnce(
    id: string,
    actor: string,
  ): Promise<RefreshAttempt> {
    const service = await getService(this.options.store, id);
    // A GitOps change pending until its pull request is merged: the cluster runs what Git holds, the spec before it.
    const pending =
      service.mode === 'gitops'
        ? await this.options.store.getPendingChange(service.id)
        : undefined;
    const live = await this.readLive(
      pending ? specInGit(service, pending) : service,
    );
    const clusterStatus = live?.clusterStatus;
    if (clusterStatus && service.mode === 'gitops') {
      return this.refreshGitOps(service, clusterStatus, actor, pending);
    }
    if (!clusterStatus || !REFRESHED_STATUSES.includes(service.status)) {
      return { service, clusterStatus, changed: false };
    }
    if (clusterStatus.error) {
      // An unreachable cluster marks its services (availability unknown); a refused read leaves them as they were.
      const change = live!.unreachable
        ? unreachableStatus(service, clusterStatus)
        : undefined;
      if (!change) {
        return { service, clusterStatus, changed: false };
      }
      const result = await compareAndSet(this.options.store, {
        id,
        ...change,
        expectedStatus: [service.status],
        expectedUpdatedAt: service.updatedAt,
        actor,
      });
      return {
        service: result.service,
        clusterStatus,
        changed: result.written,
        lostRace: !result.written,
      };
    }
    const drift = driftOf(service, clusterStatus);
    if (drift && this.options.repair) {
      this.options.logger.info('Repairing a drifted GPU service', {
        serviceId: id,
        drift,
      });
      const repaired = await this.options.repair(service, drift);
      return {
        service: repaired,
        clusterStatus,
        changed: repaired.updatedAt !== service.updatedAt,
      };
    }
    const change = decideStatus(service, clusterStatus);
    if (!change) {
      await this.recordRun(service, service, clusterStatus);
      const moved = await this.completeMove(service);
      return {
        service: moved,
        clusterStatus,
        changed: moved.updatedAt !== service.updatedAt,
      };
    }
    const result = await compareAndSet(this.options.store, {
      id,
      status: change.status,
      reason: change.reason,
      statusReason: change.statusReason,
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor,
    });
    if (result.written) {
      this.options.logger.info('GPU service status changed in the cluster', {
        serviceId: id,
        from: service.status,
        to: change.status,
        reason: change.statusReason,
      });
      await this.recordRun(service, result.service, clusterStatus);
    }
    return {
      service: result.written
        ? await this.completeMove(result.service)
        : result.service,
      clusterStatus,
      changed: result.written,
      lostRace: !result.written,
    };
  }

  /**
   * A GitOps service, read with the cluster's read-only credential: `approved` until its controller has applied it,
   * then `starting` or `ready` as in apply mode (Applied, then Kueue admission and availability). Drift is reported,
   * never repaired (Git is the source of truth): a Deployment missing once applied is `DeploymentMissing`, one that
   * differs from Git while available is `ready` with reason `DriftedFromGit`. While a change is `pending` (its pull
   * request not merged), Git and the cluster hold the spec before it: the cluster is compared with that one, and an
   * available service says `ChangePending`; its generation is not taken as applied until the cluster is read with
   * the change merged and no drift from it.
   */
  private async refreshGitOps(
    service: ServiceRecord,
    clusterStatus: ServiceClusterStatus,
    actor: string,
    pending?: ServiceChangeRecord,
  ): Promise<RefreshAttempt> {
    const unchanged = { service, clusterStatus, changed: false };
    const deployment = clusterStatus.deployment;
    if (
      clusterStatus.error ||
      !deployment ||
      !['approved', ...REFRESHED_STATUSES].includes(service.status) ||
      (service.status === 'approved' && !deployment.exists)
    ) {
      // Not read, being deleted, or not applied by its controller yet.
      return unchanged;
    }
    const change = pending
      ? pendingChangeStatus(service, pending, clusterStatus)
      : gitOpsStatus(service, clusterStatus);
    if (!change) {
      await this.recordRun(service, service, clusterStatus);
      return unchanged;
    }
    // First seen in the cluster, its request merged: its controller applied the generation that request holds. After
    // a change's merge, once the cluster no longer differs from the new spec (never while a change is pending).
    const observedCurrentGeneration =
      !pending &&
      (service.status === 'approved' ||
        ((service.observedGeneration ?? 0) < service.generation &&
          !driftOf(service, clusterStatus)));
    const result = await compareAndSet(this.options.store, {
      id: service.id,
      ...change,
      ...(observedCurrentGeneration && { observedCurrentGeneration: true }),
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor,
    });
    if (result.written) {
      this.options.logger.info('GitOps service status changed in the cluster', {
        serviceId: service.id,
        from: service.status,
        to: change.status,
        reason: change.reason,
      });
      await this.recordRun(service, result.service, clusterStatus);
    }
    return {
      service: result.service,
      clusterStatus,
      changed: result.written,
      lostRace: !result.written,
    };
  }

  /** A service available on the cluster it moved to: removed from the one it left (when the option is given). */
  private async completeMove(service: ServiceRecord): Promise<ServiceRecord> {
    if (
      service.movingFrom === undefined ||
      service.status !== 'ready' ||
      !this.options.completeMove
    ) {
      return service;
    }
    return this.options.completeMove(service);
  }

  /**
   * Records whether the workload runs (see `observeRun`), as of `current` (the version this refresh left); `read` is
   * the version before it, whose last change bounds when a run can have started.
   */
  private async recordRun(
    read: ServiceRecord,
    current: ServiceRecord,
    clusterStatus: ServiceClusterStatus,
  ): Promise<void> {
    const observation = observeRun(clusterStatus, read.updatedAt);
    if (!this.options.runs || !observation) return;
    const outcome = await this.options.runs.record(current, observation);
    if (outcome === 'started' || outcome === 'stopped') {
      this.options.logger.info(`GPU service workload ${outcome} running`, {
        serviceId: current.id,
        at: observation.since.toISOString(),
      });
    }
  }

  /**
   * {@link ServiceStatusRefresher.refreshStatus} of every `starting` and `ready` service in apply mode (the scheduled task),
   * a few at a time. When none of a batch could be read the cluster is taken to be down: the rest are not read this
   * time (and count as unreadable) rather than each waiting for the read timeout.
   */
  async refreshStatuses(): Promise<StatusRefreshSummary> {
    if (
      !this.options.statusReader &&
      !this.options.statusReaders?.size &&
      !this.options.gitopsStatusReaders?.size
    ) {
      return { checked: 0, changed: [], unreadable: [] };
    }
    const services = (
      await this.options.store.listServices({
        status: [...REFRESHED_STATUSES, 'approved'],
      })
    ).filter(s =>
      s.mode === 'apply'
        ? REFRESHED_STATUSES.includes(s.status)
        : readsInCluster(s) && Boolean(this.readerOf(s)),
    );
    const summary: StatusRefreshSummary = {
      checked: services.length,
      changed: [],
      unreadable: [],
    };
    // Each cluster on its own: one that cannot be read stops only its own services' reads, never another's.
    const byCluster = new Map<string | undefined, ServiceRecord[]>();
    for (const service of services) {
      byCluster.set(service.cluster, [
        ...(byCluster.get(service.cluster) ?? []),
        service,
      ]);
    }
    await Promise.all(
      [...byCluster.values()].map(of => this.refreshCluster(of, summary)),
    );
    return summary;
  }

  /** Refreshes one cluster's services a batch at a time; once a whole batch cannot be read, the rest are not read. */
  private async refreshCluster(
    services: ServiceRecord[],
    summary: StatusRefreshSummary,
  ): Promise<void> {
    for (let i = 0; i < services.length; i += REFRESH_BATCH) {
      const batch = services.slice(i, i + REFRESH_BATCH);
      const results = await Promise.all(
        batch.map(s =>
          this.refreshStatus(s.id).catch(error => {
            if (error instanceof NotFoundError) return undefined;
            throw error;
          }),
        ),
      );
      batch.forEach((service, index) => {
        if (results[index]?.changed) summary.changed.push(service.id);
        if (results[index]?.clusterStatus?.error) {
          summary.unreadable.push(service.id);
        }
      });
      if (results.every(r => r?.clusterStatus?.error)) {
        summary.unreadable.push(
          ...services.slice(i + REFRESH_BATCH).map(s => s.id),
        );
        break;
      }
    }
  }
}

/**
 * How the service's objects differ from what was applied, in words: its Deployment missing, another object of its
 * manifests missing (`missing`), or its Deployment scaled by hand; undefined when they do not (or it cannot be told:
 * an autoscaled Deployment's replicas are the autoscaler's).
 */
export function driftOf(
  service: ServiceRecord,
  observed: ServiceClusterStatus,
): string | undefined {
  const deployment = observed.deployment;
  if (observed.error || !deployment) return undefined;
  if (!deployment.exists) {
    return `its Deployment ${deployment.namespace}/${deployment.name} is missing from the cluster`;
  }
  if (observed.missing?.length) {
    const names = observed.missing.map(describeRef);
    return `its ${names.join(', ')} ${
      names.length === 1 ? 'is' : 'are'
    } missing from the cluster`;
  }
  if (
    !service.request.autoscaling &&
    deployment.replicas !== service.request.replicas
  ) {
    return `its Deployment asks for ${deployment.replicas} replicas, not the ${service.request.replicas} requested`;
  }
  return undefined;
}

/**
 * The objects of the service's stored manifests besides its Deployment, whose absence is drift to repair: in apply
 * mode only (what Backstage applied), and not while they are being deleted.
 */
function otherObjectsOf(
  service: ServiceRecord,
  deployment: string,
): ObjectRef[] | undefined {
  if (service.mode !== 'apply' || service.status === 'deleting') {
    return undefined;
  }
  return (service.manifests ?? [])
    .map(manifest => refOf(manifest as KubernetesObject))
    .filter(
      ref =>
        !(
          ref.kind === 'Deployment' &&
          ref.apiVersion === 'apps/v1' &&
          ref.name === deployment
        ),
    );
}

/**
 * Whether the service may have objects in its cluster, so that its cluster is read: in apply mode in the statuses that
 * applied something; in GitOps mode once its pull request is merged (or it has none), until it is deleted.
 */
function readsInCluster(service: ServiceRecord): boolean {
  if (service.mode === 'apply') {
    return IN_CLUSTER_STATUSES.includes(service.status);
  }
  return (
    service.mode === 'gitops' &&
    GITOPS_READ_STATUSES.includes(service.status) &&
    (service.pullRequest === undefined ||
      service.pullRequest.state === 'merged')
  );
}

/**
 * The status a GitOps service should have from what its cluster says (see `decideStatus`), or undefined when it says
 * it already. A difference while available is `ready` and never repaired: `AwaitingSync` while the generation merged
 * last has not been seen applied (its controller has yet to sync it), `DriftedFromGit` once it has.
 */
function gitOpsStatus(
  service: ServiceRecord,
  observed: ServiceClusterStatus,
): StatusChange | undefined {
  const drift = driftOf(service, observed);
  if (drift && observed.deployment?.exists && observed.deployment.available) {
    const awaitingSync = (service.observedGeneration ?? 0) < service.generation;
    const change: StatusChange = awaitingSync
      ? {
          status: 'ready',
          reason: 'AwaitingSync',
          statusReason: `Generation ${service.generation} is merged; its GitOps controller has not applied it yet, so the cluster still differs: ${drift}`,
        }
      : {
          status: 'ready',
          reason: 'DriftedFromGit',
          statusReason: `Drifted from Git: ${drift}. Git is the source of truth: its GitOps controller restores it; Backstage does not repair a GitOps service`,
        };
    return unlessAlready(service, change);
  }
  return decideStatus(service, observed);
}

/**
 * The service as Git's main branch holds it while `change` is pending: the spec recorded before the change (tier,
 * pool, cluster, request, placement, manifests), which its cluster keeps running until the change's request is merged.
 */
export function specInGit(
  service: ServiceRecord,
  change: ServiceChangeRecord,
): ServiceRecord {
  const { previous } = change;
  return {
    ...service,
    tier: previous.tier,
    pool: previous.pool,
    cluster: previous.cluster,
    request: previous.request,
    placement: previous.placement,
    manifests: previous.manifests,
  };
}

/**
 * The status of a GitOps service while `change` is pending, from what its cluster says compared with the spec Git
 * holds (the one before the change), or undefined when it says it already: drift from that spec while available is
 * `DriftedFromGit`; available is `ready` with `ChangePending` and what the change waits for; otherwise what keeps it
 * from being available (see `decideStatus`).
 */
function pendingChangeStatus(
  service: ServiceRecord,
  change: ServiceChangeRecord,
  observed: ServiceClusterStatus,
): StatusChange | undefined {
  const inGit = specInGit(service, change);
  const drift = driftOf(inGit, observed);
  const deployment = observed.deployment;
  let next: StatusChange;
  if (drift && deployment?.exists && deployment.available) {
    next = {
      status: 'ready',
      reason: 'DriftedFromGit',
      statusReason: `Drifted from Git: ${drift} (the spec Git holds until its change, generation ${change.generation}, is merged). Git is the source of truth: its GitOps controller restores it; Backstage does not repair a GitOps service`,
    };
  } else if (deployment?.available) {
    const waitingFor = change.pullRequest
      ? `its pull request ${change.pullRequest.url} is merged`
      : `the template run that requested it records its pull request (by ${change.confirmBy})`;
    next = {
      status: 'ready',
      reason: 'ChangePending',
      statusReason: `Available with the spec Git holds; its change (generation ${change.generation}) is pending until ${waitingFor}`,
    };
  } else {
    return decideStatus(service, observed);
  }
  return unlessAlready(service, next);
}

/** The promise's value, or an error with `message` when it takes longer than `ms`. */
async function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a failed read says the cluster cannot be reached (no answer in time, refused, reset, 5xx, throttled) rather
 * than that it refused the read (401, 403, 404: nothing waiting would fix).
 */
function isUnreachable(error: unknown): boolean {
  const statusCode = (error as { statusCode?: number }).statusCode;
  return statusCode === undefined || statusCode >= 500 || statusCode === 429;
}

/** `starting` with `ClusterUnreachable` for a service whose cluster did not answer; undefined when it already says so. */
function unreachableStatus(
  service: ServiceRecord,
  clusterStatus: ServiceClusterStatus,
): Pick<StatusChange, 'status' | 'reason' | 'statusReason'> | undefined {
  if (service.reason === 'ClusterUnreachable') {
    return undefined;
  }
  return {
    status: 'starting',
    reason: 'ClusterUnreachable',
    statusReason: `Cluster ${clusterStatus.cluster} cannot be reached; whether the service runs is unknown (${clusterStatus.error})`,
  };
}
