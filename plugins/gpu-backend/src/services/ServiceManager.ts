import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, InputError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import {
  AlertSettings,
  allowanceFromConfig,
  CreateServiceBody,
  dedicatedGpuLimitReason,
  describeRollout,
  findPool,
  findTeam,
  physicalCapacityShortfall,
  poolCapacity,
  QuoteOption,
  Placement,
  Platform,
  resolveServiceSettings,
  surgeFit,
  ServiceDefaults,
  ServiceReason,
  ServiceRequest,
  checkScaleToZero,
  UpdateServiceBody,
  validateServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  OWNERSHIP_LABELS,
  renderServiceManifests,
  renderTeamManifests,
} from '@gpu-platform/backstage-plugin-gpu-node';
import { KubernetesObject } from '@kubernetes/client-node';
import {
  ClusterApplier,
  ClusterTarget,
  KubernetesApplyError,
  KubernetesRequestError,
  OwnedKind,
} from '../cluster';
import { applyAndPrune, teardownKinds } from '../cluster/pruneServiceObjects';
import {
  AdmissionPolicy,
  ApprovalRecord,
  GpuStore,
  ReplaceReservationResult,
  ReservationRecord,
  ServiceChangeRecord,
  ServiceRecord,
  StoredManifest,
  UpdateServiceStatusInput,
} from '../database';
import { notAppliedStatusReason } from '../database/createService';
import { retriablePullRequestEnd } from '../database/serviceRetry';
import type { Forges } from '../gitops/forges';
import type { OwnedObjectsReader } from '../gitops/OwnedObjectsReader';
import { chooseOption, placementOf } from './chooseOption';
import { QUOTE_SNAPSHOT_MAX_AGE_MS, QuoteService } from './QuoteService';
import {
  compareAndSet,
  ConditionalStatusWrite,
  getService,
} from './serviceStatusWrite';
import { APPLIED_REASON } from './statusTransition';

/** How long the reconciler retries an apply that failed for a passing reason when not configured. */
const DEFAULT_APPLY_RETRY_FOR_MS = 5 * 60_000;

/** How long a provisional service waits for its confirmation when not configured. */
export const DEFAULT_CONFIRM_WITHIN_MS = 60 * 60_000;

/** How long an open pull request of a GitOps service holds its reservation when not configured. */
export const DEFAULT_MERGE_WITHIN_MS = 7 * 24 * 60 * 60_000;

/** Actor of the deletes of provisional services nobody confirmed (audit trail). */
export const CONFIRMATION_EXPIRY_ACTOR = 'system:gpu-confirmation-expiry';

/** Actor of the last step of a move between clusters: removing it from the cluster it left (audit trail). */
export const MOVE_ACTOR = 'system:gpu-cluster-move';

/** Actor of the applies that repair drift (audit trail). */
export const REPAIR_ACTOR = 'system:gpu-drift-repair';

/** The id a {@link ServiceManager.preview} answers with. */
export const PREVIEW_ID = 'dry-run';

/** Attempts of a change (PATCH) whose service was written meanwhile, each computed again from the new version. */
const MAX_CHANGE_ATTEMPTS = 10;

/** The sentence of a deleted service whose cluster objects may remain (see {@link ServiceManager.deploy}). */
const LEFTOVERS =
  'Deleted, but objects applied while it was being deleted may remain';

/**
 * Checks a service about to be recorded or changed, once its placement is chosen and before anything is written
 * (the caller's permission on it); throws to refuse.
 */
export type PlacementCheck = (draft: {
  team: string;
  environment: string;
  pool: string;
  tier: string;
}) => Promise<void>;

/** Collaborators and settings of {@link ServiceManager}. */
export interface ServiceManagerOptions {
  platform: Platform;
  store: GpuStore;
  quotes: QuoteService;
  /** The default cluster: where services go whose pool names no cluster (single-cluster and dry-run setups). */
  target: ClusterTarget;
  /** The default cluster's applier, in apply mode. */
  applier?: ClusterApplier;
  /**
   * Every configured cluster by name, with its applier in apply mode: a service goes to its pool's cluster
   * (`Pool.cluster`) and is applied, read and torn down there. Omitted: every service is on `target`.
   */
  clusters?: ReadonlyMap<string, ClusterRoute>;
  logger: LoggerService;
  /** `gpu.serviceDefaults`, parsed once: how services render on the cluster (see `resolveServiceSettings`). */
  serviceDefaults?: ServiceDefaults;
  /**
   * `gpu.alerts` when enabled: a vLLM service with a latency budget then renders a PrometheusRule with its budget
   * alert, carrying the alerts' labels. Omitted (alerts disabled): no rule.
   */
  alerts?: Pick<AlertSettings, 'labels'>;
  /**
   * The reconciler's work queue. With it, a create, change, retry or delete records the desired state and returns:
   * the queue's worker ({@link ServiceManager.reconcile}) applies or tears down. Without it (tests of the lifecycle
   * alone) the caller applies in line.
   */
  queue?: {
    add(serviceId: string): void;
    addAfter(serviceId: string, delayMs: number): void;
  };
  /**
   * How long the reconciler keeps trying an apply the cluster could not take for a passing reason before the service
   * becomes `failed` (`gpu.apply.retryFor`; 5 minutes when omitted). Only with a queue.
   */
  applyRetryForMs?: number;
  /**
   * How long a provisional service waits for {@link ServiceManager.confirm} before {@link
   * ServiceManager.expireUnconfirmed} deletes it (`gpu.services.confirmWithin`; 1 hour when omitted).
   */
  confirmWithinMs?: number;
  /**
   * GitOps: the forges pull requests are followed on (`integrations`), to check the request a confirmation records.
   * Without them a confirmation with a pull request is refused.
   */
  forges?: Pick<Forges, 'resolve'>;
  /** GitOps: how long an open pull request holds the reservation (`gpu.gitops.mergeWithin`; 7 days when omitted). */
  mergeWithinMs?: number;
  /**
   * GitOps clusters read with a read-only credential, by name: a decommission of a service there waits until its
   * objects are gone (`AwaitingPrune`) before the quota is released ({@link ServiceManager.completePrune}).
   */
  gitopsReaders?: ReadonlyMap<string, OwnedObjectsReader>;
  /** Clock (tests). */
  now?: () => Date;
}

/** One cluster a service may be on: its target and, in apply mode, its applier. */
export interface ClusterRoute {
  target: ClusterTarget;
  applier?: ClusterApplier;
}

/** A service as {@link ServiceManager.render} needs it. */
type RenderedService = Pick<
  ServiceRecord,
  'id' | 'team' | 'namespace' | 'request' | 'placement'
>;

/**
 * The lifecycle of GPU model services: creates, previews, changes, deploys (applies), retries and tears them down;
 * the one place that decides, records and applies. Reading their cluster status is `ServiceStatusRefresher`;
 * resuming interrupted applies is `InterruptedApplyResumer`.
 */
export class ServiceManager {
  /**
   * The `applying` versions this replica wrote and hands to its own queue, by service id: the claims its reconciler
   * applies. Another replica hears of the same service through its watches (the first object applied here is an
   * event there) and must not apply it too; it reaches a claim of a replica that stopped only through
   * `InterruptedApplyResumer`, once the claim is older than `gpu.apply.resumeAfter`.
   */
  private readonly claims = new Map<string, string>();

  constructor(private readonly options: ServiceManagerOptions) {}

  async create(
    body: CreateServiceBody,
    actor: string,
    check?: PlacementCheck,
  ): Promise<{
    created: boolean;
    service: ServiceRecord;
    /** The reservation the create recorded (held, or pending with the approval); the earlier one on a replay. */
    reservation?: ReservationRecord;
    approval?: ApprovalRecord;
  }> {
    const { platform, store, quotes } = this.options;
    const request = validateServiceRequest(platform, body.request);
    const quote = await quotes.quote(request);
    const option = chooseOption(platform, quote);
    const target = this.targetOf(option.cluster);
    const placement = placementOf(option);
    this.checkScaleToZero(request, placement);
    await check?.({
      team: request.team,
      environment: request.environment,
      ...placement,
    });
    const namespace = this.namespaceOf(request);
    const mode = body.mode ?? target.mode;
    const id = randomUUID();
    // The desired state is recorded once, with the manifests rendered from it, in one transaction (a request that
    // waits for approval is rendered when it is approved): a process that stops right after leaves it complete.
    const manifests = (await this.render(
      {
        id,
        team: request.team,
        namespace,
        request: { ...request, namespace },
        placement,
      },
      unitsOf(option),
    )) as StoredManifest[];
    const result = await store.createServiceWithReservation({
      id,
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
      mode,
      manifests,
      requestKey: body.requestKey,
      ...(body.provisional && {
        confirmBy: new Date(
          this.now().getTime() +
            (this.options.confirmWithinMs ?? DEFAULT_CONFIRM_WITHIN_MS),
        ),
      }),
      reservation: {
        gpuEquivalents: option.gpuEquivalents,
        monthlyCostMicros: option.cost.monthly,
      },
      policy: admissionPolicy(platform, request, option),
      actor,
    });
    if (!result.created) {
      // A replay of a create whose first attempt recorded the service but stopped before handing it over (the
      // database or the process went away between the two writes): the replay finishes it. The claim is a
      // compare-and-set, so a first attempt still under way, or another replica, takes it at most once.
      if (
        result.service.status === 'approved' &&
        this.appliesTo(result.service)
      ) {
        return { ...result, service: await this.deploy(result.service, actor) };
      }
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
    check?: PlacementCheck,
  ): Promise<{ service: ServiceRecord; reservation: ReservationRecord }> {
    const { platform, quotes } = this.options;
    const request = validateServiceRequest(platform, body.request);
    const option = chooseOption(platform, await quotes.quote(request));
    const target = this.targetOf(option.cluster);
    const placement = placementOf(option);
    this.checkScaleToZero(request, placement);
    // As the store refuses at creation: a request that alone needs more than its pool physically has.
    const shortfall = physicalCapacityShortfall(
      poolCapacity(platform, findPool(platform, placement.pool)),
      {
        gpuUnits: option.slice.gpuUnits * option.replicas,
        migProfile: placement.migProfile,
      },
    );
    if (shortfall) {
      throw new InputError(shortfall);
    }
    await check?.({
      team: request.team,
      environment: request.environment,
      ...placement,
    });
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
      reason: pending ? 'AwaitingApproval' : 'DryRun',
      generation: 1,
      statusChangedAt: now,
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
    service.manifests = (await this.render(
      service,
      unitsOf(option),
    )) as StoredManifest[];
    const rollout = await this.rolloutNote(service, unitsOf(option));
    if (rollout) {
      service.statusReason = `${service.statusReason}. ${rollout}`;
    }
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
    return getService(this.options.store, id);
  }

  /**
   * Changes a service (PATCH). With `provisional` (GitOps only), the change is pending until its pull request is
   * merged: the service as it was is kept restorable until the template run confirms it with its request
   * ({@link ServiceManager.confirm}) and the request is merged; closed unmerged, not merged in time or never confirmed,
   * it is rolled back ({@link ServiceManager.rollBackChange}). With `dryRun`, admission weighs the change as it would
   * (without the service's own current reservation) and the answer is what would be recorded; nothing is written.
   */
  async update(
    id: string,
    change: UpdateServiceBody,
    actor: string,
    check?: PlacementCheck,
  ): Promise<{
    service: ServiceRecord;
    approval?: ApprovalRecord;
    reservation?: ReservationRecord;
  }> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.changeFrom(
        await this.get(id),
        change,
        actor,
        check,
      );
      if (result) {
        return result;
      }
      if (attempt >= MAX_CHANGE_ATTEMPTS) {
        throw new ConflictError(
          `Service ${id} kept changing while it was being changed; try again`,
        );
      }
    }
  }

  /**
   * One attempt of {@link ServiceManager.update}, computed from `current` as read: re-quoted, re-reserved and
   * rendered, then stored as one compare-and-set on `current`'s version (the spec, its manifests and the status the
   * service takes: `applying`, or `approved` when it is only rendered), and applied. Undefined when the service was
   * written since it was read (another change, an apply ending, a status refresh): start over from the new version,
   * so that no change is computed from, or overwrites, another one.
   */
  private async changeFrom(
    current: ServiceRecord,
    change: UpdateServiceBody,
    actor: string,
    check?: PlacementCheck,
  ): Promise<
    | {
        service: ServiceRecord;
        approval?: ApprovalRecord;
        reservation?: ReservationRecord;
      }
    | undefined
  > {
    const { platform, store, quotes } = this.options;
    if (change.provisional && current.mode !== 'gitops') {
      throw new InputError(
        `Service ${current.name} is in ${current.mode} mode: only a change of a GitOps service is pending until its pull request is merged (provisional)`,
      );
    }
    const request: ServiceRequest = validateServiceRequest(platform, {
      ...current.request,
      ...(change.model !== undefined ? { model: change.model } : {}),
      ...(change.replicas !== undefined ? { replicas: change.replicas } : {}),
      ...(change.tier !== undefined ? { tier: change.tier } : {}),
      ...(change.pool !== undefined ? { pool: change.pool } : {}),
    });
    const option = chooseOption(platform, await quotes.quote(request));
    const placement = placementOf(option);
    this.checkScaleToZero(request, placement);
    const moveTo = this.moveTarget(current, option.cluster, placement.pool);
    await check?.({
      team: request.team,
      environment: request.environment,
      ...placement,
    });
    const changed: ServiceRecord = {
      ...current,
      tier: placement.tier,
      pool: placement.pool,
      request,
      placement,
      ...(moveTo !== undefined && { cluster: moveTo }),
    };
    let result;
    try {
      result = await store.replaceReservation({
        serviceId: current.id,
        change: {
          tier: placement.tier,
          pool: placement.pool,
          ...(moveTo !== undefined && { cluster: moveTo }),
          request,
          placement,
          manifests: (await this.render(changed)) as StoredManifest[],
        },
        reservation: {
          gpuEquivalents: option.gpuEquivalents,
          monthlyCostMicros: option.cost.monthly,
        },
        policy: admissionPolicy(platform, request, option),
        expectedUpdatedAt: current.updatedAt,
        status: this.deployment(changed),
        ...(change.provisional && {
          pendingChange: {
            confirmBy: new Date(
              this.now().getTime() +
                (this.options.confirmWithinMs ?? DEFAULT_CONFIRM_WITHIN_MS),
            ),
          },
        }),
        ...(change.dryRun && { dryRun: true }),
        actor,
      });
    } catch (error) {
      if (
        error instanceof ConflictError &&
        (await this.get(current.id)).updatedAt !== current.updatedAt
      ) {
        return undefined;
      }
      throw error;
    }
    if (change.dryRun) {
      return changePreview(result);
    }
    if (result.outcome === 'pending-approval') {
      return { service: result.service, approval: result.approval };
    }
    if (result.service.status !== 'applying') {
      return { service: result.service };
    }
    return { service: await this.applyOrQueue(result.service, actor) };
  }

  /**
   * The cluster a change moves the service to: undefined when its new pool is on the cluster it is on (or names
   * none). A move is a change like any other (re-quoted, re-reserved, approved when policy says so), applied on the
   * new cluster first; its objects on the cluster it leaves are removed once it is available on the new one
   * ({@link ServiceManager.completeMove}). Refused (400) when the service could not follow: a service Backstage
   * applies cannot move to a cluster it does not apply to, nor a rendered-only one to a cluster of another mode;
   * refused (409) while it is already moving, unless back to the cluster it is leaving (two clusters at most hold its
   * objects).
   */
  private moveTarget(
    current: ServiceRecord,
    cluster: string | undefined,
    pool: string,
  ): string | undefined {
    if (
      cluster === undefined ||
      current.cluster === undefined ||
      cluster === current.cluster
    ) {
      return undefined;
    }
    const target = this.targetOf(cluster);
    if (target.name !== cluster) {
      throw new InputError(
        `Pool ${pool} is on cluster ${cluster}, which is not configured (gpu.clusters)`,
      );
    }
    if (current.mode === 'apply' && !this.applierOf({ cluster })) {
      throw new InputError(
        `Service ${current.name} is applied by Backstage on cluster ${current.cluster}; pool ${pool} is on cluster ${cluster} (mode ${target.mode}), where Backstage does not apply it: choose a pool of a cluster in apply mode`,
      );
    }
    if (current.mode === 'dry-run' && target.mode !== 'dry-run') {
      throw new InputError(
        `Service ${current.name} is rendered only (dry-run) on cluster ${current.cluster}; pool ${pool} is on cluster ${cluster} (mode ${target.mode}): create the service there instead`,
      );
    }
    if (current.movingFrom !== undefined && cluster !== current.movingFrom) {
      throw new ConflictError(
        `Service ${current.name} is moving from cluster ${current.movingFrom} to ${current.cluster}; it can move to cluster ${cluster} once that move is done (or back to ${current.movingFrom} now)`,
      );
    }
    return cluster;
  }

  /**
   * The last step of a move between clusters, once the service is available on its new cluster (`ready`): deletes
   * its objects from the cluster it left, by ownership label, and clears `movingFrom` (a compare-and-set on the
   * version read; the status stays `ready`). Until then its objects there keep serving; if the new cluster never
   * says it is available, they stay. A delete the old cluster does not take leaves the move as it is: the next
   * status refresh tries again. Returns the service as it is afterwards.
   */
  async completeMove(service: ServiceRecord): Promise<ServiceRecord> {
    const from = service.movingFrom;
    if (from === undefined || service.status !== 'ready') return service;
    const applier = this.applierOf({ cluster: from });
    try {
      if (applier) {
        await applier.deleteByOwnership(
          service.id,
          await teardownKinds(applier, service, ownedKinds(service)),
        );
      }
    } catch (error) {
      this.options.logger.warn(
        'Removing a moved GPU service from the cluster it left failed; trying again at the next refresh',
        { serviceId: service.id, cluster: from, error: String(error) },
      );
      return service;
    }
    const done = await this.compareAndSet({
      id: service.id,
      status: 'ready',
      reason: service.reason,
      statusReason: `Moved from cluster ${from} to cluster ${service.cluster}: available there, its objects on ${from} removed`,
      moveCompleted: true,
      expectedStatus: ['ready'],
      expectedUpdatedAt: service.updatedAt,
      actor: MOVE_ACTOR,
    });
    if (done.written) {
      this.options.logger.info('Moved a GPU service between clusters', {
        serviceId: service.id,
        from,
        to: service.cluster,
      });
    }
    return done.service;
  }

  /**
   * Deletes the objects of a service on the cluster it is moving from, when it is torn down while moving: both
   * clusters hold its objects. Nothing when it is not moving.
   */
  private async deleteFromMoveSource(service: ServiceRecord): Promise<void> {
    if (service.movingFrom === undefined) return;
    const applier = this.applierOf({ cluster: service.movingFrom });
    if (!applier) return;
    await applier.deleteByOwnership(
      service.id,
      await teardownKinds(applier, service, ownedKinds(service)),
    );
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
    const deployment = this.deployment(service);
    if (
      deployment.status !== 'applying' &&
      service.manifests &&
      service.status === deployment.status &&
      service.reason === deployment.reason &&
      service.statusReason === deployment.statusReason
    ) {
      // Rendered and stored as it stays (a GitOps or dry-run service as created): nothing to write.
      return service;
    }
    const claimed = await this.compareAndSet({
      id: service.id,
      ...deployment,
      // Rendered at creation or change (stored already: not written again); an approved request is rendered now.
      manifests: service.manifests
        ? undefined
        : ((await this.render(service)) as StoredManifest[]),
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor,
    });
    if (deployment.status !== 'applying' || !claimed.written) {
      return claimed.service;
    }
    return this.applyOrQueue(claimed.service, actor);
  }

  /** Hands a service this caller moved to `applying` to the reconciler's queue, or applies it in line without one. */
  private async applyOrQueue(
    applying: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    if (this.options.queue) {
      this.claims.set(applying.id, applying.updatedAt);
      this.options.queue.add(applying.id);
      return applying;
    }
    return this.applyClaimed(applying, actor);
  }

  /**
   * Applies again a `starting` or `ready` service whose objects drifted from its stored manifests (a Deployment
   * deleted or scaled by hand): `applying` with reason `Applying`, then applied like any other (the status refresh's
   * repair). A compare-and-set on the version read: a service written meanwhile is returned as it is.
   */
  async repair(service: ServiceRecord, why: string): Promise<ServiceRecord> {
    if (!this.appliesTo(service)) return service;
    const claimed = await this.compareAndSet({
      id: service.id,
      status: 'applying',
      reason: 'Applying',
      statusReason: `Applying again: ${why}`,
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor: REPAIR_ACTOR,
    });
    if (!claimed.written) return claimed.service;
    return this.applyOrQueue(claimed.service, REPAIR_ACTOR);
  }

  /**
   * The reconciler's work on one service, level-triggered: whatever the event, reads the stored service and drives
   * its cluster towards it: an `applying` service is applied (its stored manifests, one server-side apply per
   * object) and becomes `starting` or `failed` with a reason; a `deleting` one has its objects deleted by ownership
   * label and, once they are gone, its reservation released. Every write is a compare-and-set on the version read, so
   * a replica that works on the same service meanwhile never has its outcome overwritten.
   *
   * An `applying` service is applied only by the replica that moved it to `applying` (its claim is that version):
   * one apply per object per change, however many replicas hear of the service. A replica that stopped mid-apply
   * leaves its claim to `InterruptedApplyResumer`.
   *
   * Returns the service as read when it is in its cluster with nothing to apply or tear down (`starting`, `ready`):
   * the caller then reads its cluster status (a watch event about it, or drift to repair); undefined otherwise.
   */
  async reconcile(serviceId: string): Promise<ServiceRecord | undefined> {
    const service = await this.options.store.getService(serviceId);
    if (!service || !this.appliesTo(service)) {
      return undefined;
    }
    if (service.status === 'applying') {
      if (this.claims.get(service.id) !== service.updatedAt) {
        // Another replica's claim (or an older one of this replica's, superseded by a later write).
        return undefined;
      }
      // Should this throw (the database out of reach), the claim stays: the queue works on it again with backoff.
      await this.applyClaimed(service, service.updatedBy);
      // Done, unless a retry later claimed a newer version.
      if (this.claims.get(service.id) === service.updatedAt) {
        this.claims.delete(service.id);
      }
      return undefined;
    }
    if (service.status === 'deleting') {
      await this.completeTeardown(service, service.updatedBy);
      return undefined;
    }
    return service.status === 'starting' || service.status === 'ready'
      ? service
      : undefined;
  }

  /**
   * The status a service takes when it is deployed: `applying` when this backend applies it, else `approved` with
   * what was done (a service recorded in GitOps mode is never applied, even on a cluster Backstage applies to).
   */
  private deployment(service: Pick<ServiceRecord, 'mode' | 'cluster'>): {
    status: 'applying' | 'approved';
    reason: ServiceReason;
    statusReason?: string;
  } {
    if (this.appliesTo(service)) {
      return { status: 'applying', reason: 'Applying' };
    }
    const mode = service.mode === 'gitops' ? 'gitops' : 'dry-run';
    return {
      status: 'approved',
      reason: mode === 'gitops' ? 'RenderedForGitOps' : 'DryRun',
      statusReason: notAppliedStatusReason(mode),
    };
  }

  /**
   * Whether a decommission of the service waits for its GitOps controller: GitOps, on a cluster read with a read-only
   * credential, with manifests that may have been merged (not a pull request still open, closed or expired), and not
   * deleted or waiting already.
   */
  private awaitsPrune(service: ServiceRecord): boolean {
    return (
      service.mode === 'gitops' &&
      service.cluster !== undefined &&
      this.options.gitopsReaders?.has(service.cluster) === true &&
      Boolean(service.manifests?.length) &&
      (service.pullRequest === undefined ||
        service.pullRequest.state === 'merged') &&
      service.status !== 'deleted' &&
      service.status !== 'deleting'
    );
  }

  /** Whether this backend applies the service to its cluster. */
  private appliesTo(service: Pick<ServiceRecord, 'mode' | 'cluster'>): boolean {
    return this.applierOf(service) !== undefined && service.mode === 'apply';
  }

  /** The cluster a service on a pool of `cluster` goes to: that cluster's target, else the default one. */
  private targetOf(cluster: string | undefined): ClusterTarget {
    const route =
      cluster !== undefined ? this.options.clusters?.get(cluster) : undefined;
    return route?.target ?? this.options.target;
  }

  /**
   * The applier of the service's cluster: with several clusters the one it records, else the default applier (a
   * service recorded before clusters were named has none, and is on the default cluster).
   */
  applierOf(
    service: Pick<ServiceRecord, 'cluster'>,
  ): ClusterApplier | undefined {
    const { clusters, applier, target } = this.options;
    if (service.cluster !== undefined && clusters?.has(service.cluster)) {
      return clusters.get(service.cluster)!.applier;
    }
    return service.cluster === undefined || service.cluster === target.name
      ? applier
      : undefined;
  }

  /**
   * Confirms a provisional service: it is no longer deleted when its confirmation time passes. With the web address
   * of the pull (merge) request that delivers a GitOps service, its reservation follows that request from then on
   * (see `GitOpsFollower`): kept once merged, rolled back when closed unmerged, expired at `mergeWithin`. An address
   * no configured forge serves is an InputError, and nothing is confirmed.
   */
  async confirm(
    id: string,
    actor: string,
    pullRequestUrl?: string,
  ): Promise<ServiceRecord> {
    if (pullRequestUrl === undefined) {
      return this.options.store.confirmService({ id, actor });
    }
    const { forges } = this.options;
    if (!forges) {
      throw new InputError(
        `No forge is configured (integrations): the backend cannot follow the pull request ${pullRequestUrl}`,
      );
    }
    const { ref } = forges.resolve(pullRequestUrl);
    return this.options.store.confirmService({
      id,
      actor,
      pullRequest: {
        ...ref,
        mergeBy: new Date(
          this.now().getTime() +
            (this.options.mergeWithinMs ?? DEFAULT_MERGE_WITHIN_MS),
        ),
      },
    });
  }

  /**
   * GitOps: ends the decommission of a service `AwaitingPrune` once its cluster (read with the read-only credential)
   * has none of its objects left: `deleted`, quota released. Undefined while objects remain (with their count in the
   * reason), when the service is not waiting for a prune, or when its cluster is not read.
   */
  async completePrune(
    id: string,
    actor: string,
  ): Promise<{ service: ServiceRecord; remaining: number } | undefined> {
    const service = await this.get(id);
    const reader =
      service.cluster !== undefined
        ? this.options.gitopsReaders?.get(service.cluster)
        : undefined;
    if (
      service.status !== 'deleting' ||
      service.reason !== 'AwaitingPrune' ||
      !reader
    ) {
      return undefined;
    }
    const remaining = await reader.remaining(service.id, ownedKinds(service));
    if (remaining.length > 0) {
      return { service, remaining: remaining.length };
    }
    const deleted = await this.compareAndSet({
      id: service.id,
      status: 'deleted',
      reason: 'Deleted',
      statusReason: `Deleted: the GitOps controller removed its objects from cluster ${service.cluster}; quota released`,
      releaseReservation: true,
      expectedStatus: ['deleting'],
      expectedUpdatedAt: service.updatedAt,
      actor,
    });
    return deleted.written
      ? { service: deleted.service, remaining: 0 }
      : undefined;
  }

  /**
   * GitOps: rolls back a service whose pull request will never be merged (closed without merging, or expired): it is
   * deleted and its quota released, with the reason code saying why. Nothing was applied by Backstage, and nothing
   * merged, so nothing is in the cluster. Undefined when it is already deleted or being deleted.
   */
  async rollBackPullRequest(
    id: string,
    reason: 'PullRequestClosed' | 'PullRequestExpired',
    actor: string,
  ): Promise<ServiceRecord | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const service = await this.get(id);
      if (service.status === 'deleting' || service.status === 'deleted') {
        return undefined;
      }
      const written = await this.compareAndSet({
        id: service.id,
        status: 'deleted',
        reason,
        statusReason:
          reason === 'PullRequestClosed'
            ? `Its pull request ${
                service.pullRequest?.url ?? ''
              } was closed without merging: deleted and quota released`
            : `Its pull request ${
                service.pullRequest?.url ?? ''
              } was not merged in time: closed, deleted and quota released`,
        releaseReservation: true,
        expectedStatus: [service.status],
        expectedUpdatedAt: service.updatedAt,
        actor,
      });
      if (written.written) {
        return written.service;
      }
    }
    throw new ConflictError(
      `Service ${id} kept changing while its pull request was being rolled back; the next round tries again`,
    );
  }

  /**
   * GitOps: rolls back a change that was pending until its pull request is merged (see {@link ServiceManager.update}'s
   * `provisional`): the service's spec, manifests, cluster and status as they were, the reservation it held before
   * held again with the same pool and amounts (the new one released), with the reason code saying why: `closed`
   * unmerged (`ChangePullRequestClosed`), not merged in time (`ChangePullRequestExpired`, the request closed by the
   * follower), or never confirmed with its request (`ChangeNotConfirmed`). Undefined when the change is no longer
   * pending, or the service is being deleted or deleted.
   */
  async rollBackChange(
    change: ServiceChangeRecord,
    state: 'closed' | 'expired' | 'unconfirmed',
    actor: string,
  ): Promise<ServiceRecord | undefined> {
    const url = change.pullRequest?.url ?? '';
    const { reason, statusReason } = {
      closed: {
        reason: 'ChangePullRequestClosed' as const,
        statusReason: `The pull request ${url} of its change (generation ${change.generation}) was closed without merging: its previous spec and reservation are restored`,
      },
      expired: {
        reason: 'ChangePullRequestExpired' as const,
        statusReason: `The pull request ${url} of its change (generation ${change.generation}) was not merged in time: closed, and its previous spec and reservation restored`,
      },
      unconfirmed: {
        reason: 'ChangeNotConfirmed' as const,
        statusReason: `Its change (generation ${change.generation}) was not confirmed by ${change.confirmBy} (the template run that requested it did not finish): its previous spec and reservation are restored`,
      },
    }[state];
    const result = await this.options.store.rollBackChange({
      changeId: change.id,
      state,
      reason,
      statusReason,
      actor,
    });
    if (result) {
      this.options.logger.info('Rolled back a GitOps change', {
        serviceId: change.serviceId,
        generation: change.generation,
        state,
      });
    }
    return result?.service;
  }

  /**
   * Deletes the provisional services whose confirmation time has passed (their template run failed or was abandoned)
   * and releases their quota, as a DELETE would; rolls back the pending changes whose template run did not confirm
   * them in time ({@link ServiceManager.rollBackChange}). A service confirmed meanwhile is left alone: the teardown is
   * a compare-and-set on the version that was read unconfirmed, the rollback conditional on the change still pending.
   */
  async expireUnconfirmed(): Promise<ServiceRecord[]> {
    const now = this.now();
    const expired: ServiceRecord[] = [];
    for (const change of await this.options.store.listPendingChanges()) {
      if (
        !change.pullRequest &&
        change.confirmBy &&
        Date.parse(change.confirmBy) <= now.getTime()
      ) {
        const restored = await this.rollBackChange(
          change,
          'unconfirmed',
          CONFIRMATION_EXPIRY_ACTOR,
        );
        if (restored) expired.push(restored);
      }
    }
    for (const candidate of await this.options.store.listUnconfirmedServices(
      now,
    )) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const service = await this.get(candidate.id);
        if (
          !service.confirmBy ||
          Date.parse(service.confirmBy) > now.getTime() ||
          service.status === 'deleting' ||
          service.status === 'deleted'
        ) {
          break;
        }
        const done = await this.tryTeardown(
          service,
          CONFIRMATION_EXPIRY_ACTOR,
          !this.options.queue,
        );
        if (done) {
          expired.push(done);
          break;
        }
      }
    }
    return expired;
  }

  /**
   * Completes what left the service `failed`: the teardown when a delete failed (the last status change was
   * `deleting` to `failed`), else the apply. Objects already in the cluster are applied again unchanged.
   *
   * GitOps: a service whose pull request was closed without merging (`PullRequestClosed`), not merged in time
   * (`PullRequestExpired`) or never confirmed (deleted at its `confirmBy`) is retried through a new request
   * ({@link ServiceManager.retryPullRequest}).
   */
  async retry(
    id: string,
    actor: string,
    check?: PlacementCheck,
  ): Promise<ServiceRecord> {
    const service = await this.get(id);
    const ended = retriablePullRequestEnd(service);
    if (ended) {
      return this.retryPullRequest(service, ended, actor, check);
    }
    if (service.status !== 'failed') {
      throw new ConflictError(
        service.mode === 'gitops'
          ? `Service ${service.name} is ${service.status} (${service.reason}); only a failed service, or a GitOps service whose pull request was closed without merging, not merged in time or never confirmed, can be retried`
          : `Service ${id} is ${service.status}; only a failed service can be retried`,
      );
    }
    if (service.reason === 'TeardownFailed') {
      return this.teardown(id, actor);
    }
    return this.deploy(service, actor);
  }

  /**
   * GitOps: retries a service whose pull request will never be merged (`ended`: closed unmerged, expired, or never
   * confirmed), as its creation was: quoted again, its placement checked (`check`), weighed by admission against the
   * team's quota, budget, the pool's capacity and policy, its manifests rendered again; then a new reservation is held
   * and the service is `approved` (`RenderedForGitOps`) again, provisional: the template run that publishes its
   * directory in a new pull request confirms it with that request by `gpu.services.confirmWithin`, after which its
   * reservation follows the request (`mergeWithin`) as at creation. A refusal (over quota or budget with policy
   * reject, over pool capacity, needing an approver, its name taken by a live service) is a `ConflictError` and
   * nothing is written or held; bad input (the request no longer valid on the platform) an `InputError`.
   */
  private async retryPullRequest(
    first: ServiceRecord,
    firstEnded: 'closed' | 'expired' | 'unconfirmed',
    actor: string,
    check?: PlacementCheck,
  ): Promise<ServiceRecord> {
    const { platform, store, quotes } = this.options;
    let service = first;
    let ended = firstEnded;
    for (let attempt = 1; ; attempt++) {
      const request = validateServiceRequest(platform, service.request);
      const option = chooseOption(platform, await quotes.quote(request));
      const target = this.targetOf(option.cluster);
      const placement = placementOf(option);
      this.checkScaleToZero(request, placement);
      await check?.({
        team: request.team,
        environment: request.environment,
        ...placement,
      });
      const retried = {
        ...service,
        request,
        placement,
        tier: placement.tier,
        pool: placement.pool,
      };
      const confirmBy = new Date(
        this.now().getTime() +
          (this.options.confirmWithinMs ?? DEFAULT_CONFIRM_WITHIN_MS),
      );
      const last = service.pullRequest?.url;
      const why = {
        closed: `its pull request ${last ?? ''} was closed without merging`,
        expired: `its pull request ${last ?? ''} was not merged in time`,
        unconfirmed: `its pull request was never confirmed (the template run that opened it did not finish by ${service.confirmBy})`,
      }[ended];
      try {
        const result = await store.retryPullRequest({
          serviceId: service.id,
          change: {
            tier: placement.tier,
            pool: placement.pool,
            cluster: target.name,
            request,
            placement,
            manifests: (await this.render(
              retried,
              unitsOf(option),
            )) as StoredManifest[],
          },
          reservation: {
            gpuEquivalents: option.gpuEquivalents,
            monthlyCostMicros: option.cost.monthly,
          },
          policy: admissionPolicy(platform, request, option),
          expectedUpdatedAt: service.updatedAt,
          statusReason: `Retried after ${why}: quota reserved again and rendered for GitOps; publish the manifests in a new pull request and confirm it by ${confirmBy.toISOString()}`,
          confirmBy,
          actor,
        });
        this.options.logger.info('Retried a GitOps service', {
          serviceId: service.id,
          ended,
          pool: placement.pool,
          generation: result.service.generation,
        });
        return result.service;
      } catch (error) {
        const now = await this.get(service.id);
        const next = retriablePullRequestEnd(now);
        if (
          !(error instanceof ConflictError) ||
          now.updatedAt === service.updatedAt ||
          !next ||
          attempt >= MAX_CHANGE_ATTEMPTS
        ) {
          throw error;
        }
        service = now;
        ended = next;
      }
    }
  }

  /**
   * Deletes what was applied (by ownership label), releases the quota, keeps the record. Each step is a
   * compare-and-set on the version read; when the service changed meanwhile (an apply finished), it starts over from
   * the new version.
   */
  async teardown(
    id: string,
    actor: string,
    options: { inLine?: boolean } = {},
  ): Promise<ServiceRecord> {
    const inLine = options.inLine || !this.options.queue;
    for (let attempt = 0; attempt < 5; attempt++) {
      const done = await this.tryTeardown(await this.get(id), actor, inLine);
      if (done) {
        return done;
      }
    }
    throw new ConflictError(
      `Service ${id} kept changing while it was being deleted; try again`,
    );
  }

  /** Whether services in apply mode are applied to a cluster (an applier is configured). */
  hasApplier(): boolean {
    return (
      this.options.applier !== undefined ||
      [...(this.options.clusters?.values() ?? [])].some(c => c.applier)
    );
  }

  /**
   * Applies a service this caller moved to `applying` (`applying` is the version it wrote) and stores the outcome,
   * conditional on that version: `starting`, or `failed` with the cluster's message. When the service changed
   * meanwhile, see {@link ServiceManager.deploy}. Also the entry point of `InterruptedApplyResumer`, which
   * claims the service itself; needs an applier ({@link ServiceManager.hasApplier}).
   */
  async applyClaimed(
    applying: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    const { logger } = this.options;
    const applier = this.applierOf(applying);
    let outcome: Pick<
      UpdateServiceStatusInput,
      | 'status'
      | 'reason'
      | 'statusReason'
      | 'observedCurrentGeneration'
      | 'pruned'
    >;
    try {
      // Only the service's stored objects and its team's namespaced ones: the cluster-wide Kueue objects its
      // LocalQueue points at are the platform loop's, which every write that changes them starts (see
      // triggeringStore).
      // A new generation, once all of it is applied, also deletes what it no longer renders of an earlier one.
      const pruned = await applyAndPrune(applier!, applying, logger);
      outcome = {
        status: 'starting',
        reason: 'Applied',
        statusReason: APPLIED_REASON,
        observedCurrentGeneration: true,
        ...(pruned.length > 0 && { pruned }),
      };
    } catch (error) {
      logger.warn('Applying GPU service failed', {
        serviceId: applying.id,
        error: String(error),
      });
      const retry = this.transientRetryDelay(applying, error);
      if (retry !== undefined) {
        return this.retryLater(applying, error as Error, retry, actor);
      }
      outcome = {
        status: 'failed',
        reason: 'ApplyFailed',
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

  /**
   * The pause before the reconciler applies again (or deletes again) a service whose apply (teardown) the cluster
   * could not take for a passing reason (no answer, a conflict, throttling, a server error): half the time it has
   * been trying, from 1 s to 30 s. Undefined when the error will repeat, without a queue, or once `applyRetryForMs`
   * has passed since it started applying (deleting): then it fails.
   */
  private transientRetryDelay(
    applying: ServiceRecord,
    error: unknown,
  ): number | undefined {
    const { queue, applyRetryForMs = DEFAULT_APPLY_RETRY_FOR_MS } =
      this.options;
    if (
      !queue ||
      !(error instanceof KubernetesApplyError) ||
      !(error.cause instanceof KubernetesRequestError) ||
      !error.cause.retryable
    ) {
      return undefined;
    }
    const trying = this.now().getTime() - Date.parse(applying.statusChangedAt);
    if (trying >= applyRetryForMs) {
      return undefined;
    }
    return Math.min(30_000, Math.max(1_000, trying / 2));
  }

  /** Keeps the service `applying`, saying why, and has the queue apply it again after `delayMs`. */
  private async retryLater(
    applying: ServiceRecord,
    error: Error,
    delayMs: number,
    actor: string,
  ): Promise<ServiceRecord> {
    const written = await this.compareAndSet({
      id: applying.id,
      status: 'applying',
      reason: 'Applying',
      statusReason: `The cluster could not take the apply yet (${
        error.message
      }); trying again in ${Math.round(delayMs / 1000)} s`,
      expectedStatus: ['applying'],
      expectedUpdatedAt: applying.updatedAt,
      actor,
    });
    if (written.written) {
      this.claims.set(applying.id, written.service.updatedAt);
      this.options.queue!.addAfter(applying.id, delayMs);
      return written.service;
    }
    if (isTornDown(written.service)) {
      return this.sweepAfterTeardown(written.service, applying, actor);
    }
    return written.service;
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** The teardown won over an apply in flight: delete by ownership label again, now that every PATCH is done. */
  private async sweepAfterTeardown(
    current: ServiceRecord,
    applied: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    const { logger } = this.options;
    const applier = this.applierOf(current);
    logger.info('A GPU service was deleted while it was being applied', {
      serviceId: current.id,
      status: current.status,
    });
    try {
      await applier!.deleteByOwnership(
        current.id,
        await teardownKinds(applier!, current, ownedKinds(applied)),
      );
      await this.deleteFromMoveSource(current);
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
          reason: 'DeletedWithLeftovers',
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

  /**
   * One teardown step from `service` as read; undefined when it changed meanwhile (start over). A service with objects
   * in the cluster becomes `deleting`, then (in line, or by the reconciler) {@link ServiceManager.completeTeardown};
   * one without is deleted and its quota released at once.
   */
  private async tryTeardown(
    service: ServiceRecord,
    actor: string,
    inLine: boolean,
  ): Promise<ServiceRecord | undefined> {
    const applier = this.applierOf(service);
    const inCluster =
      applier !== undefined &&
      service.mode === 'apply' &&
      Boolean(service.manifests?.length);
    if (service.status === 'deleting' && service.reason === 'AwaitingPrune') {
      // Already decommissioned: the quota is released when the cluster shows the objects gone, not by asking again.
      return service;
    }
    if (this.awaitsPrune(service)) {
      // GitOps, on a cluster read back: the controller removes the objects once their directory is removed from the
      // repository; the quota is held until the cluster shows them gone (completePrune).
      return (
        await this.compareAndSet({
          id: service.id,
          status: 'deleting',
          reason: 'AwaitingPrune',
          statusReason: `Waiting for the GitOps controller to remove its objects from cluster ${service.cluster} (remove its directory from the repository); quota stays held until they are gone`,
          expectedStatus: [service.status],
          expectedUpdatedAt: service.updatedAt,
          actor,
        })
      ).written
        ? this.get(service.id)
        : undefined;
    }
    if (service.status === 'deleted') {
      return inCluster && service.reason === 'DeletedWithLeftovers'
        ? this.sweepLeftovers(service, actor)
        : service;
    }
    if (inCluster) {
      if (service.status === 'deleting' && !inLine) {
        // Already being torn down: the reconciler finishes it.
        this.options.queue!.add(service.id);
        return service;
      }
      const deleting = await this.compareAndSet({
        id: service.id,
        status: 'deleting',
        reason: 'Deleting',
        expectedStatus: [service.status],
        expectedUpdatedAt: service.updatedAt,
        actor,
      });
      if (!deleting.written) {
        return undefined;
      }
      if (!inLine) {
        this.options.queue!.add(service.id);
        return deleting.service;
      }
      return this.completeTeardown(deleting.service, actor);
    }
    const deleted = await this.compareAndSet({
      id: service.id,
      status: 'deleted',
      reason: 'Deleted',
      statusReason: teardownReason(service, applier !== undefined, this.now()),
      releaseReservation: true,
      expectedStatus: [service.status],
      expectedUpdatedAt: service.updatedAt,
      actor,
    });
    return deleted.written ? deleted.service : undefined;
  }

  /**
   * Deletes the objects of a `deleting` service by ownership label and, once the cluster has confirmed, marks it
   * `deleted` and releases its reservation (a finalizer's order); `failed` with reason `TeardownFailed`, quota held,
   * when the cluster refuses. A cluster that cannot take the deletes for a passing reason (no answer, throttling, a
   * server error) leaves it `deleting` and the reconciler tries again with backoff, as for an apply. When the service
   * changed meanwhile (a concurrent DELETE finished first), the current version.
   */
  private async completeTeardown(
    deleting: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    try {
      const applier = this.applierOf(deleting)!;
      await applier.deleteByOwnership(
        deleting.id,
        await teardownKinds(applier, deleting, ownedKinds(deleting)),
      );
      await this.deleteFromMoveSource(deleting);
    } catch (error) {
      const retry = this.transientRetryDelay(deleting, error);
      if (retry !== undefined) {
        const waiting = await this.compareAndSet({
          id: deleting.id,
          status: 'deleting',
          reason: 'Deleting',
          statusReason: `The cluster could not take the deletes yet (${
            (error as Error).message
          }); trying again in ${Math.round(retry / 1000)} s`,
          expectedStatus: ['deleting'],
          expectedUpdatedAt: deleting.updatedAt,
          actor,
        });
        if (waiting.written) this.options.queue!.addAfter(deleting.id, retry);
        return waiting.service;
      }
      return (
        await this.compareAndSet({
          id: deleting.id,
          status: 'failed',
          reason: 'TeardownFailed',
          statusReason: `Teardown failed: ${
            (error as Error).message
          } (quota stays reserved; retry the delete)`,
          expectedStatus: ['deleting'],
          expectedUpdatedAt: deleting.updatedAt,
          actor,
        })
      ).service;
    }
    return (
      await this.compareAndSet({
        id: deleting.id,
        status: 'deleted',
        reason: 'Deleted',
        statusReason: teardownReason(deleting, true, this.now()),
        releaseReservation: true,
        moveCompleted: deleting.movingFrom !== undefined,
        expectedStatus: ['deleting'],
        expectedUpdatedAt: deleting.updatedAt,
        actor,
      })
    ).service;
  }

  /** DELETE of a deleted service whose objects may remain: delete them by ownership label again. */
  private async sweepLeftovers(
    service: ServiceRecord,
    actor: string,
  ): Promise<ServiceRecord> {
    const applier = this.applierOf(service)!;
    await applier.deleteByOwnership(
      service.id,
      await teardownKinds(applier, service, ownedKinds(service)),
    );
    await this.deleteFromMoveSource(service);
    return (
      await this.compareAndSet({
        id: service.id,
        status: 'deleted',
        reason: 'Deleted',
        statusReason: teardownReason(service, true, this.now()),
        expectedStatus: ['deleted'],
        expectedUpdatedAt: service.updatedAt,
        actor,
      })
    ).service;
  }

  /** A conditional status write; on a lost compare-and-set, the current service instead. */
  private async compareAndSet(
    input: ConditionalStatusWrite,
  ): Promise<{ written: boolean; service: ServiceRecord }> {
    return compareAndSet(this.options.store, input);
  }

  /**
   * The team's namespace-level objects (LocalQueue...) and the service's own objects, in apply order, rendered with
   * the effective `gpu.serviceDefaults` of its environment and pool and, where its environment rolls out with a
   * surge, whether the team's quota holds the surge pod (see `surgeFit`; `pendingUnits` are what a service not
   * reserved yet will hold).
   */
  async render(
    service: RenderedService,
    pendingUnits = 0,
  ): Promise<KubernetesObject[]> {
    const { platform } = this.options;
    const settings = this.settingsOf(service.request, service.placement);
    const surge = settings.zeroDowntimeRollouts
      ? await this.surgeOf(service, pendingUnits)
      : undefined;
    return [
      ...renderTeamManifests(platform, service.team).filter(
        object => object.metadata?.namespace === service.namespace,
      ),
      ...renderServiceManifests(platform, service.request, service.placement, {
        ...settings,
        serviceId: service.id,
        surge,
        ...(this.options.alerts
          ? { alerts: { labels: this.options.alerts.labels } }
          : {}),
      }),
    ];
  }

  /** The effective `gpu.serviceDefaults` of a service: its environment's over its pool's over the defaults. */
  private settingsOf(request: ServiceRequest, placement: Placement) {
    return resolveServiceSettings(this.options.serviceDefaults, {
      environment: request.environment,
      pool: placement.pool,
    });
  }

  /** Refuses scale to zero without a wake trigger in the settings of the chosen pool (a 400 saying what to set). */
  private checkScaleToZero(request: ServiceRequest, placement: Placement) {
    checkScaleToZero(
      { ...request, pool: placement.pool },
      this.settingsOf(request, placement),
    );
  }

  /**
   * What a zero-downtime rollout of the service needs from quota, for a preview: its surge pod's share and whether
   * the team's quota holds it (else the rollout goes without a surge). Undefined where rollouts do not surge.
   */
  private async rolloutNote(
    service: RenderedService,
    pendingUnits: number,
  ): Promise<string | undefined> {
    if (
      !this.settingsOf(service.request, service.placement).zeroDowntimeRollouts
    ) {
      return undefined;
    }
    const surge = await this.surgeOf(service, pendingUnits);
    return describeRollout(surge);
  }

  private async surgeOf(service: RenderedService, pendingUnits: number) {
    const { platform, store } = this.options;
    const ledger = await store.getLedgerSnapshot(
      service.team,
      QUOTE_SNAPSHOT_MAX_AGE_MS,
    );
    return surgeFit({
      platform,
      placement: service.placement,
      allowance:
        ledger?.allowance ??
        allowanceFromConfig(findTeam(platform, service.team)),
      reservedGpuUnits: ledger?.reservedGpuUnits ?? {},
      pendingUnits,
    });
  }

  private namespaceOf(request: ServiceRequest): string {
    if (request.namespace) return request.namespace;
    const team = this.options.platform.teams.find(t => t.name === request.team);
    return team!.namespaces[0];
  }
}

/**
 * What a dry-run change answers: the service as the change would leave it (its new spec and manifests), `pending-approval`
 * with why when admission would have it wait for an approver, else `approved` with reason `DryRun`; the reservation
 * (and approval) it would record, with the id `dry-run`. Nothing of it was stored.
 */
function changePreview(result: ReplaceReservationResult): {
  service: ServiceRecord;
  reservation: ReservationRecord;
  approval?: ApprovalRecord;
} {
  const reservation = { ...result.reservation, id: PREVIEW_ID };
  if (result.outcome === 'pending-approval') {
    const { approval } = result;
    const proposal = approval.proposal;
    return {
      service: {
        ...result.service,
        ...(proposal && {
          tier: proposal.tier,
          pool: proposal.pool,
          request: proposal.request,
          placement: proposal.placement,
          ...(proposal.manifests && { manifests: proposal.manifests }),
        }),
        status: 'pending-approval',
        reason: 'AwaitingApproval',
        statusReason: `Would wait for approval: ${approval.reasons
          .map(r => r.message)
          .join('; ')}. Dry-run: nothing was changed, reserved or applied`,
      },
      reservation,
      approval: {
        ...approval,
        id: PREVIEW_ID,
        reservationId: PREVIEW_ID,
      },
    };
  }
  return {
    service: {
      ...result.service,
      status: 'approved',
      reason: 'DryRun',
      statusReason:
        'Dry-run: admission would allow the change; nothing was changed, reserved or applied',
    },
    reservation,
  };
}

/** GPU units an option reserves: its slice's units x replicas. */
function unitsOf(option: QuoteOption): number {
  return option.slice.gpuUnits * option.replicas;
}

function teardownReason(
  service: ServiceRecord,
  hasApplier: boolean,
  now: Date,
): string {
  const unconfirmed =
    service.confirmBy && Date.parse(service.confirmBy) <= now.getTime()
      ? `Not confirmed by ${service.confirmBy} (the template run that requested it did not finish). `
      : '';
  if (service.mode === 'gitops') {
    return `${unconfirmed}Deleted and quota released; remove its manifests from the GitOps repository to stop it`;
  }
  return (
    unconfirmed +
    (hasApplier && service.mode === 'apply'
      ? 'Deleted from the cluster'
      : 'Deleted (nothing was applied)')
  );
}

/**
 * What admission weighs beside its own findings: the one policy finding of the quote that does not depend on what the
 * team holds or the pool has, dedicated GPUs above what the environment allows without approval (as a pending
 * approval is weighed again, `previewApprovals`). Quota, budget, this month's budget, spot in production and pool
 * capacity are admission's own, weighed under its locks on the ledger, for a change without the reservation it gives
 * back; the quote's words for them count what the service holds now, so a change would wait for approval on its own
 * reservation. Requests over quota or budget wait for an approver.
 */
function admissionPolicy(
  platform: Platform,
  request: ServiceRequest,
  option: QuoteOption,
): AdmissionPolicy {
  const environment = platform.environments.find(
    e => e.name === request.environment,
  );
  const message =
    environment &&
    dedicatedGpuLimitReason(environment, option.slice, option.replicas);
  return {
    approvalReasons: message ? [{ code: 'policy', message }] : undefined,
    whenOverQuota: 'require-approval',
  };
}

/** The kinds of the service's own objects (those with its service-id label), per namespace. */
export function ownedKinds(service: ServiceRecord): OwnedKind[] {
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
    (service.status === 'failed' && service.reason === 'TeardownFailed')
  );
}
