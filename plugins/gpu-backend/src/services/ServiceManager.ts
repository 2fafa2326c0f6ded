import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError } from '@backstage/errors';
import {
  CreateServiceBody,
  QuoteOption,
  Platform,
  ServiceClusterStatus,
  ServiceRequest,
  ServiceStatus,
  UpdateServiceBody,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import {
  OWNERSHIP_LABELS,
  renderServiceManifests,
  renderTeamManifests,
  serviceObjectNames,
} from '@internal/backstage-plugin-gpu-node';
import { KubernetesObject } from '@kubernetes/client-node';
import {
  ClusterApplier,
  ClusterStatusReader,
  ClusterTarget,
  OwnedKind,
} from '../cluster';
import {
  AdmissionPolicy,
  ApprovalRecord,
  GpuStore,
  ReservationRecord,
  ServiceRecord,
  StoredManifest,
  UpdateServiceStatusInput,
} from '../database';
import { renderTeamQueueDependencies } from '../reconciler/renderKueueObjects';
import { chooseOption, placementOf } from './chooseOption';
import { QuoteService } from './QuoteService';
import {
  APPLIED_REASON,
  decideStatus,
  REFRESHED_STATUSES,
} from './statusTransition';

/** The id a {@link ServiceManager.preview} answers with. */
export const PREVIEW_ID = 'dry-run';

/** Actor of the status changes the cluster's state causes (audit trail). */
export const STATUS_REFRESH_ACTOR = 'system:gpu-status-refresh';

/** Actor of resumed (and given up) interrupted applies (audit trail). */
export const APPLY_RESUME_ACTOR = 'system:gpu-apply-resume';

/** Start of the reason of a service whose teardown failed. */
const TEARDOWN_FAILED = 'Teardown failed';

/** Start of the reason of a deleted service whose cluster objects may remain (see {@link ServiceManager.deploy}). */
const LEFTOVERS =
  'Deleted, but objects applied while it was being deleted may remain';

/** Services the scheduled refresh reads at the same time. */
const REFRESH_BATCH = 4;

/** Statuses in which a service in apply mode may have objects in its cluster, so its cluster status is read. */
const IN_CLUSTER_STATUSES: ServiceStatus[] = [
  'applying',
  'starting',
  'ready',
  'failed',
  'deleting',
];

/** Collaborators and settings of {@link ServiceManager}. */
export interface ServiceManagerOptions {
  platform: Platform;
  store: GpuStore;
  quotes: QuoteService;
  target: ClusterTarget;
  applier?: ClusterApplier;
  /** Reads the cluster status of services in apply mode (same cluster as the applier). */
  statusReader?: ClusterStatusReader;
  logger: LoggerService;
  /** Longest wait for one live status read; 5 s when omitted. */
  statusReadTimeoutMs?: number;
  /** An `applying` service not written for this long was interrupted and is resumed; 2 minutes when omitted. */
  resumeAfterMs?: number;
  /** Resumes of one interrupted apply before the service becomes `failed`; 3 when omitted. */
  resumeAttempts?: number;
  /** Clock (tests). */
  now?: () => Date;
}

/** Outcome of {@link ServiceManager.refreshStatus}. */
export interface StatusRefresh {
  /** The service after the refresh (changed or not). */
  service: ServiceRecord;
  /** What the cluster says; undefined for services that have nothing in a cluster Backstage reads. */
  clusterStatus?: ServiceClusterStatus;
  /** Whether this refresh changed the stored status or reason. */
  changed: boolean;
}

/** Outcome of {@link ServiceManager.refreshStatuses}. */
export interface StatusRefreshSummary {
  /** `starting` and `ready` services read. */
  checked: number;
  /** Ids of the services whose status or reason changed. */
  changed: string[];
  /** Ids of the services whose cluster could not be read (status unchanged). */
  unreadable: string[];
}

/** Outcome of {@link ServiceManager.resumeInterruptedApplies}. */
export interface ApplyResumeSummary {
  /** Services this call claimed and applied again, with the status they ended in. */
  resumed: { id: string; status: ServiceStatus }[];
  /** Services interrupted too often, now `failed`. */
  gaveUp: string[];
}

/** Creates, changes, deploys and tears down GPU model services; the one place that decides, records and applies. */
export class ServiceManager {
  private readonly statusReadTimeoutMs: number;
  private readonly resumeAfterMs: number;
  private readonly resumeAttempts: number;
  private readonly now: () => Date;

  constructor(private readonly options: ServiceManagerOptions) {
    this.statusReadTimeoutMs = options.statusReadTimeoutMs ?? 5_000;
    this.resumeAfterMs = options.resumeAfterMs ?? 120_000;
    this.resumeAttempts = options.resumeAttempts ?? 3;
    this.now = options.now ?? (() => new Date());
  }

  async create(
    body: CreateServiceBody,
    actor: string,
  ): Promise<{
    created: boolean;
    service: ServiceRecord;
    approval?: ApprovalRecord;
  }> {
    const { platform, store, quotes, target } = this.options;
    const request = validateServiceRequest(platform, body.request);
    const quote = await quotes.quote(request);
    const option = chooseOption(quote);
    const placement = placementOf(option);
    const namespace = this.namespaceOf(request);
    const result = await store.createServiceWithReservation({
      name: request.name,
      team: request.team,
      namespace,
      entityRef: body.entityRef,
      environment: request.environment,
      tier: placement.tier,
      pool: placement.pool,
      request: { ...request, namespace },
      placement,
      cluster: target.name,
      mode: body.mode ?? target.mode,
      requestKey: body.requestKey,
      reservation: {
        gpuEquivalents: option.gpuEquivalents,
        monthlyCostMicros: option.cost.monthly,
      },
      policy: admissionPolicy(option),
      actor,
    });
    if (!result.created) {
      return result;
    }
    this.options.logger.info('Created GPU service', {
      serviceId: result.service.id,
      team: request.team,
      tier: placement.tier,
      pool: placement.pool,
      status: result.service.status,
    });
    if (result.service.status !== 'approved') {
      return result;
    }
    return { ...result, service: await this.deploy(result.service, actor) };
  }

  /**
   * What {@link ServiceManager.create} would record, reserve and render for the body, without storing or applying
   * anything (the id is `dry-run`). Fails like create on bad input or when nothing fits.
   */
  async preview(
    body: CreateServiceBody,
    actor: string,
  ): Promise<{ service: ServiceRecord; reservation: ReservationRecord }> {
    const { platform, quotes, target } = this.options;
    const request = validateServiceRequest(platform, body.request);
    const option = chooseOption(await quotes.quote(request));
    const placement = placementOf(option);
    const namespace = this.namespaceOf(request);
    const pending = option.verdict !== 'allowed';
    const now = new Date().toISOString();
    const service: ServiceRecord = {
      id: PREVIEW_ID,
      name: request.name,
      team: request.team,
      namespace,
      entityRef: body.entityRef,
      environment: request.environment,
      tier: placement.tier,
      pool: placement.pool,
      status: pending ? 'pending-approval' : 'approved',
      statusReason: pending
        ? `Would wait for approval: ${option.reasons.join('; ')}`
        : 'Dry-run: nothing was stored, reserved or applied',
      request: { ...request, namespace },
      placement,
      cluster: target.name,
      mode: body.mode ?? target.mode,
      requestKey: body.requestKey,
      createdBy: actor,
      createdAt: now,
      updatedBy: actor,
      updatedAt: now,
    };
    service.manifests = this.render(service) as StoredManifest[];
    return {
      service,
      reservation: {
        id: PREVIEW_ID,
        serviceId: PREVIEW_ID,
        team: request.team,
        pool: placement.pool,
        gpuEquivalents: option.gpuEquivalents,
        monthlyCostMicros: option.cost.monthly,
        state: pending ? 'pending' : 'held',
        createdAt: now,
      },
    };
  }

  async get(id: string): Promise<ServiceRecord> {
    const service = await this.options.store.getService(id);
    if (!service) {
      throw new NotFoundError(`No GPU service with id ${id}`);
    }
    return service;
  }

  async update(id: string, change: UpdateServiceBody, actor: string) {
    const { platform, store, quotes } = this.options;
    const current = await this.get(id);
    const request: ServiceRequest = validateServiceRequest(platform, {
      ...current.request,
      ...(change.model !== undefined ? { model: change.model } : {}),
      ...(change.replicas !== undefined ? { replicas: change.replicas } : {}),
      ...(change.tier !== undefined ? { tier: change.tier } : {}),
      ...(change.pool !== undefined ? { pool: change.pool } : {}),
    });
    const option = chooseOption(await quotes.quote(request));
    const placement = placementOf(option);
    const result = await store.replaceReservation({
      serviceId: id,
      change: {
        tier: placement.tier,
        pool: placement.pool,
        request,
        placement,
      },
      reservation: {
        gpuEquivalents: option.gpuEquivalents,
        monthlyCostMicros: option.cost.monthly,
      },
      policy: admissionPolicy(option),
      actor,
    });
    if (result.outcome === 'pending-approval') {
      return { service: result.service, approval: result.approval };
    }
    return { service: await this.deploy(result.service, actor) };
  }

  /**
   * Renders the service and applies it (apply mode: the team's ClusterQueue and the platform objects it needs, then
   * the team's LocalQueue, then the service's objects) or stores the manifests (gitops, dry-run). A successful apply
   * leaves the service `starting`: it becomes `ready` when the status refresh sees its Deployment available.
   *
   * Every write is a compare-and-set on the version it was computed from: `service` must be the stored version (its
   * status and `updatedAt`), else nothing is applied and the current service is returned.
   *
   * A DELETE that arrives while the apply is in flight (on this or another backend replica) wins: the teardown moves
   * the service from `applying` to `deleting` and deletes what it finds by ownership label. This apply's final write
   * is conditional on the `applying` version it wrote, so it cannot bring the service back; when it finds the
   * service torn down it deletes the owned objects once more, because the teardown may have listed them before this
   * apply's last PATCH created some (every PATCH of this apply has completed by then, so that second sweep sees all
   * of them). Neither side waits for the other, which also works across replicas. Should that second sweep fail too,
   * the deleted service's reason says objects may remain, and a DELETE of it sweeps again.
   */
  async deploy(service: ServiceRecord, actor: string): Promise<ServiceRecord> {
    const { applier } = this.options;
    const manifests = this.render(service) as StoredManifest[];
    const expected = {
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
    };
    // A service recorded in GitOps mode is never applied, even on a cluster Backstage applies to.
    if (!applier || service.mode !== 'apply') {
      return (
        await this.compareAndSet({
          id: service.id,
          status: 'approved',
          statusReason:
            service.mode === 'gitops'
              ? 'Rendered for GitOps: publish the manifests; nothing was applied by Backstage'
              : 'Dry-run: no cluster is configured, the manifests are rendered and stored but not applied',
          manifests,
          ...expected,
          actor,
        })
      ).service;
    }
    const applying = await this.compareAndSet({
      id: service.id,
      status: 'applying',
      manifests,
      ...expected,
      actor,
    });
    if (!applying.written) {
      return applying.service;
    }
    return this.applyClaimed(applying.service, actor);
  }

  /**
   * Completes what left the service `failed`: the teardown when a delete failed (the last status change was
   * `deleting` to `failed`), else the apply. Objects already in the cluster are applied again unchanged.
   */
  async retry(id: string, actor: string): Promise<ServiceRecord> {
    const service = await this.get(id);
    if (service.status !== 'failed') {
      throw new ConflictError(
        `Service ${id} is ${service.status}; only a failed service can be retried`,
      );
    }
    const { items } = await this.options.store.listAuditEvents({
      subjectId: id,
      action: 'service.status',
      limit: 1,
    });
    if (items[0]?.before?.status === 'deleting') {
      return this.teardown(id, actor);
    }
    return this.deploy(service, actor);
  }

  /**
   * Deletes what was applied (by ownership label), releases the quota, keeps the record. Each step is a
   * compare-and-set on the version read; when the service changed meanwhile (an apply finished), it starts over from
   * the new version.
   */
  async teardown(id: string, actor: string): Promise<ServiceRecord> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const done = await this.tryTeardown(await this.get(id), actor);
      if (done) {
        return done;
      }
    }
    throw new ConflictError(
      `Service ${id} kept changing while it was being deleted; try again`,
    );
  }

  /**
   * Reads what the cluster says about a service in apply mode, within the status read timeout. Undefined for
   * services with nothing in a cluster Backstage reads (dry-run, GitOps, not yet applied, deleted). A cluster that
   * cannot be read in time gives `{ cluster, observedAt, error }`, never an exception.
   */
  async readClusterStatus(
    service: ServiceRecord,
  ): Promise<ServiceClusterStatus | undefined> {
    const { statusReader, logger } = this.options;
    if (
      !statusReader ||
      service.mode !== 'apply' ||
      !IN_CLUSTER_STATUSES.includes(service.status) ||
      (service.cluster !== undefined &&
        service.cluster !== statusReader.cluster)
    ) {
      return undefined;
    }
    const observedAt = this.now().toISOString();
    try {
      return await withTimeout(
        statusReader.read({
          serviceId: service.id,
          namespace: service.namespace,
          deployment: serviceObjectNames(service.request.name).deployment,
        }),
        this.statusReadTimeoutMs,
        `no answer within ${this.statusReadTimeoutMs} ms`,
      );
    } catch (error) {
      logger.warn('Reading the cluster status of a GPU service failed', {
        serviceId: service.id,
        cluster: statusReader.cluster,
        error: String(error),
      });
      return {
        cluster: statusReader.cluster,
        observedAt,
        error: `The cluster '${statusReader.cluster}' could not be read: ${
          (error as Error).message
        }; the status is the last one stored`,
      };
    }
  }

  /**
   * Reads the service's cluster status and, for a `starting` or `ready` service, stores what it implies: `ready`
   * when the Deployment is available, else `starting` with why (Kueue's pending message, a failing pod, ...). The
   * write is conditional on the status and `updatedAt` it was computed from, so a service changed, re-applied or
   * deleted meanwhile is left alone. Used by `GET /services/:id` and the scheduled refresh.
   */
  async refreshStatus(
    id: string,
    actor: string = STATUS_REFRESH_ACTOR,
  ): Promise<StatusRefresh> {
    const service = await this.get(id);
    const clusterStatus = await this.readClusterStatus(service);
    if (!clusterStatus || !REFRESHED_STATUSES.includes(service.status)) {
      return { service, clusterStatus, changed: false };
    }
    const change = decideStatus(service, clusterStatus);
    if (!change) {
      return { service, clusterStatus, changed: false };
    }
    const result = await this.compareAndSet({
      id,
      status: change.status,
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
    }
    return { service: result.service, clusterStatus, changed: result.written };
  }

  /**
   * {@link ServiceManager.refreshStatus} of every `starting` and `ready` service in apply mode (the scheduled task),
   * a few at a time. When none of a batch could be read the cluster is taken to be down: the rest are not read this
   * time (and count as unreadable) rather than each waiting for the read timeout.
   */
  async refreshStatuses(): Promise<StatusRefreshSummary> {
    if (!this.options.statusReader) {
      return { checked: 0, changed: [], unreadable: [] };
    }
    const services = (
      await this.options.store.listServices({ status: REFRESHED_STATUSES })
    ).filter(s => s.mode === 'apply');
    const summary: StatusRefreshSummary = {
      checked: services.length,
      changed: [],
      unreadable: [],
    };
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
    return summary;
  }

  /**
   * Services left `applying` for longer than `resumeAfterMs` (the backend applying them stopped, or lost the
   * cluster, mid-apply) are claimed with a compare-and-set, so exactly one replica takes each, and applied again:
   * server-side apply is idempotent, objects already there stay unchanged. After `resumeAttempts` resumes of the
   * same apply the service becomes `failed` with the reason, quota held; `POST /services/:id/retry` applies it.
   */
  async resumeInterruptedApplies(): Promise<ApplyResumeSummary> {
    const summary: ApplyResumeSummary = { resumed: [], gaveUp: [] };
    if (!this.options.applier) {
      return summary;
    }
    const cutoff = this.now().getTime() - this.resumeAfterMs;
    const stale = (
      await this.options.store.listServices({ status: 'applying' })
    ).filter(s => s.mode === 'apply' && Date.parse(s.updatedAt) <= cutoff);
    for (const service of stale) {
      const resumes = await this.resumesOf(service.id);
      const expected = {
        expectedStatus: ['applying' as const],
        expectedUpdatedAt: service.updatedAt,
      };
      if (resumes >= this.resumeAttempts) {
        const failed = await this.compareAndSet({
          id: service.id,
          status: 'failed',
          statusReason:
            `The apply was interrupted ${
              resumes + 1
            } times before it completed (the backend applying it ` +
            `stopped or lost the cluster); quota stays reserved; retry the apply or delete the service`,
          ...expected,
          actor: APPLY_RESUME_ACTOR,
        });
        if (failed.written) summary.gaveUp.push(service.id);
        continue;
      }
      const claim = await this.compareAndSet({
        id: service.id,
        status: 'applying',
        statusReason: `Resuming an interrupted apply (resume ${
          resumes + 1
        } of ${this.resumeAttempts}); it had not completed ${Math.round(
          (this.now().getTime() - Date.parse(service.updatedAt)) / 1000,
        )} s after it started`,
        manifests: this.render(service) as StoredManifest[],
        ...expected,
        actor: APPLY_RESUME_ACTOR,
      });
      if (!claim.written) {
        continue;
      }
      this.options.logger.info('Resuming an interrupted apply', {
        serviceId: service.id,
        resume: resumes + 1,
      });
      const after = await this.applyClaimed(claim.service, APPLY_RESUME_ACTOR);
      summary.resumed.push({ id: service.id, status: after.status });
    }
    return summary;
  }

  /**
   * Applies a service this caller moved to `applying` (`applying` is the version it wrote) and stores the outcome,
   * conditional on that version: `starting`, or `failed` with the cluster's message. When the service changed
   * meanwhile, see {@link ServiceManager.deploy}.
   */
  private async applyClaimed(
    applying: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    const { applier, logger } = this.options;
    let outcome: Pick<UpdateServiceStatusInput, 'status' | 'statusReason'>;
    try {
      await applier!.apply([
        ...(await this.queueDependencies(applying)),
        ...this.render(applying),
      ]);
      outcome = { status: 'starting', statusReason: APPLIED_REASON };
    } catch (error) {
      logger.warn('Applying GPU service failed', {
        serviceId: applying.id,
        error: String(error),
      });
      outcome = {
        status: 'failed',
        statusReason: `${
          (error as Error).message
        } (quota stays reserved; retry the apply or delete the service)`,
      };
    }
    const result = await this.compareAndSet({
      id: applying.id,
      ...outcome,
      expectedStatus: ['applying'],
      expectedUpdatedAt: applying.updatedAt,
      actor,
    });
    if (result.written || !isTornDown(result.service)) {
      // Written, or another apply of the same service claimed it (an interrupted-apply resume): it finishes.
      return result.service;
    }
    return this.sweepAfterTeardown(result.service, applying, actor);
  }

  /** The teardown won over an apply in flight: delete by ownership label again, now that every PATCH is done. */
  private async sweepAfterTeardown(
    current: ServiceRecord,
    applied: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    const { applier, logger } = this.options;
    logger.info('A GPU service was deleted while it was being applied', {
      serviceId: current.id,
      status: current.status,
    });
    try {
      await applier!.deleteByOwnership(current.id, ownedKinds(applied));
    } catch (error) {
      logger.error(
        'Deleting the objects of a GPU service applied while it was being deleted failed',
        { serviceId: current.id, error: String(error) },
      );
      await this.recordLeftovers(current.id, error as Error, actor);
    }
    return this.get(current.id);
  }

  /**
   * Marks a deleted service whose objects may remain, so that a DELETE of it sweeps again. While the teardown is
   * still `deleting`, waits for it (briefly) first; a teardown that fails leaves the service `failed`, whose retry
   * sweeps anyway.
   */
  private async recordLeftovers(
    id: string,
    error: Error,
    actor: string,
  ): Promise<void> {
    for (let wait = 0; wait < 20; wait++) {
      const service = await this.get(id);
      if (service.status === 'deleted') {
        await this.compareAndSet({
          id,
          status: 'deleted',
          statusReason: `${LEFTOVERS}: ${error.message}; delete the service again to remove them`,
          expectedStatus: ['deleted'],
          expectedUpdatedAt: service.updatedAt,
          actor,
        });
        return;
      }
      if (service.status !== 'deleting') {
        return;
      }
      await new Promise(resolve => setTimeout(resolve, 500));
    }
  }

  /** One teardown step from `service` as read; undefined when it changed meanwhile (start over). */
  private async tryTeardown(
    service: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord | undefined> {
    const { applier } = this.options;
    const inCluster =
      applier !== undefined &&
      service.mode === 'apply' &&
      Boolean(service.manifests?.length);
    if (service.status === 'deleted') {
      return inCluster && service.statusReason?.startsWith(LEFTOVERS)
        ? this.sweepLeftovers(service, actor)
        : service;
    }
    let current = service;
    if (inCluster) {
      const deleting = await this.compareAndSet({
        id: service.id,
        status: 'deleting',
        expectedStatus: [service.status],
        expectedUpdatedAt: service.updatedAt,
        actor,
      });
      if (!deleting.written) {
        return undefined;
      }
      current = deleting.service;
      try {
        await applier!.deleteByOwnership(service.id, ownedKinds(service));
      } catch (error) {
        return (
          await this.compareAndSet({
            id: service.id,
            status: 'failed',
            statusReason: `${TEARDOWN_FAILED}: ${
              (error as Error).message
            } (quota stays reserved; retry the delete)`,
            expectedStatus: ['deleting'],
            expectedUpdatedAt: current.updatedAt,
            actor,
          })
        ).service;
      }
    }
    const deleted = await this.compareAndSet({
      id: service.id,
      status: 'deleted',
      statusReason: teardownReason(service, applier !== undefined),
      releaseReservation: true,
      expectedStatus: [current.status],
      expectedUpdatedAt: current.updatedAt,
      actor,
    });
    if (deleted.written || current.status === 'deleting') {
      // Not written after our own `deleting`: a concurrent DELETE of the same service finished first.
      return deleted.service;
    }
    return undefined;
  }

  /** DELETE of a deleted service whose objects may remain: delete them by ownership label again. */
  private async sweepLeftovers(
    service: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    await this.options.applier!.deleteByOwnership(
      service.id,
      ownedKinds(service),
    );
    return (
      await this.compareAndSet({
        id: service.id,
        status: 'deleted',
        statusReason: teardownReason(service, true),
        expectedStatus: ['deleted'],
        expectedUpdatedAt: service.updatedAt,
        actor,
      })
    ).service;
  }

  /** Consecutive resumes of the current apply: the newest status changes that went from `applying` to `applying`. */
  private async resumesOf(id: string): Promise<number> {
    const { items } = await this.options.store.listAuditEvents({
      subjectId: id,
      action: 'service.status',
      limit: this.resumeAttempts + 1,
    });
    let resumes = 0;
    for (const event of items) {
      if (
        event.before?.status !== 'applying' ||
        event.after?.status !== 'applying'
      ) {
        break;
      }
      resumes += 1;
    }
    return resumes;
  }

  /** A conditional status write; on a lost compare-and-set, the current service instead. */
  private async compareAndSet(
    input: UpdateServiceStatusInput,
  ): Promise<{ written: boolean; service: ServiceRecord }> {
    try {
      return {
        written: true,
        service: await this.options.store.updateServiceStatus(input),
      };
    } catch (error) {
      if (error instanceof ConflictError) {
        return { written: false, service: await this.get(input.id) };
      }
      throw error;
    }
  }

  /**
   * The cluster-level Kueue objects the team's LocalQueue points at, as the Kueue reconciler renders them (stored
   * quota included). Applied before the service so that a fresh cluster admits it without waiting for the
   * reconciler; not part of the service's stored manifests, and never deleted with it (platform ownership labels).
   */
  private async queueDependencies(
    service: ServiceRecord,
  ): Promise<KubernetesObject[]> {
    const { platform, store } = this.options;
    return renderTeamQueueDependencies(
      platform,
      await store.listQuotas(),
      service.team,
    );
  }

  /** The team's namespace-level objects (LocalQueue...) and the service's own objects, in apply order. */
  private render(service: ServiceRecord): KubernetesObject[] {
    const { platform } = this.options;
    return [
      ...renderTeamManifests(platform, service.team).filter(
        object => object.metadata?.namespace === service.namespace,
      ),
      ...renderServiceManifests(platform, service.request, service.placement, {
        serviceId: service.id,
      }),
    ];
  }

  private namespaceOf(request: ServiceRequest): string {
    if (request.namespace) return request.namespace;
    const team = this.options.platform.teams.find(t => t.name === request.team);
    return team!.namespaces[0];
  }
}

function teardownReason(service: ServiceRecord, hasApplier: boolean): string {
  if (service.mode === 'gitops') {
    return 'Deleted and quota released; remove its manifests from the GitOps repository to stop it';
  }
  return hasApplier && service.mode === 'apply'
    ? 'Deleted from the cluster'
    : 'Deleted (nothing was applied)';
}

/** Requests the quote does not allow outright wait for an approver; so do requests over quota or budget. */
function admissionPolicy(option: QuoteOption): AdmissionPolicy {
  return {
    approvalReasons:
      option.verdict === 'needs-approval'
        ? option.reasons.map(message => ({ code: 'policy', message }))
        : undefined,
    whenOverQuota: 'require-approval',
  };
}

/** The kinds of the service's own objects (those with its service-id label), per namespace. */
function ownedKinds(service: ServiceRecord): OwnedKind[] {
  const seen = new Map<string, OwnedKind>();
  for (const m of service.manifests ?? []) {
    const metadata = m.metadata as
      | { namespace?: string; labels?: Record<string, string> }
      | undefined;
    if (metadata?.labels?.[OWNERSHIP_LABELS.serviceId] !== service.id) {
      continue;
    }
    const namespace = metadata.namespace;
    seen.set(`${m.apiVersion}/${m.kind}/${namespace ?? ''}`, {
      apiVersion: m.apiVersion,
      kind: m.kind,
      ...(namespace ? { namespace } : {}),
    });
  }
  return [...seen.values()];
}

/** Deleted, being deleted, or failed in its teardown. */
function isTornDown(service: ServiceRecord): boolean {
  return (
    service.status === 'deleting' ||
    service.status === 'deleted' ||
    (service.status === 'failed' &&
      (service.statusReason ?? '').startsWith(TEARDOWN_FAILED))
  );
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
