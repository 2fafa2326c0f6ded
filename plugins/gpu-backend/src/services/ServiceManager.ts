import { LoggerService } from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError } from '@backstage/errors';
import {
  CreateServiceBody,
  QuoteOption,
  Platform,
  ServiceRequest,
  UpdateServiceBody,
  validateServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import {
  OWNERSHIP_LABELS,
  renderServiceManifests,
  renderTeamManifests,
} from '@internal/backstage-plugin-gpu-node';
import { KubernetesObject } from '@kubernetes/client-node';
import { ClusterApplier, ClusterTarget } from '../cluster';
import {
  AdmissionPolicy,
  ApprovalRecord,
  GpuStore,
  ReservationRecord,
  ServiceRecord,
  StoredManifest,
} from '../database';
import { renderTeamQueueDependencies } from '../reconciler/renderKueueObjects';
import { chooseOption, placementOf } from './chooseOption';
import { QuoteService } from './QuoteService';

/** The id a {@link ServiceManager.preview} answers with. */
export const PREVIEW_ID = 'dry-run';

/** Creates, changes, deploys and tears down GPU model services; the one place that decides, records and applies. */
export class ServiceManager {
  constructor(
    private readonly options: {
      platform: Platform;
      store: GpuStore;
      quotes: QuoteService;
      target: ClusterTarget;
      applier?: ClusterApplier;
      logger: LoggerService;
    },
  ) {}

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
   * the team's LocalQueue, then the service's objects) or stores the manifests (gitops, dry-run).
   */
  async deploy(service: ServiceRecord, actor: string): Promise<ServiceRecord> {
    const { store, applier, logger } = this.options;
    const manifests = this.render(service);
    const stored = manifests as StoredManifest[];
    // A service recorded in GitOps mode is never applied, even on a cluster Backstage applies to.
    if (!applier || service.mode !== 'apply') {
      return store.updateServiceStatus({
        id: service.id,
        status: 'approved',
        statusReason:
          service.mode === 'gitops'
            ? 'Rendered for GitOps: publish the manifests; nothing was applied by Backstage'
            : 'Dry-run: no cluster is configured, the manifests are rendered and stored but not applied',
        manifests: stored,
        actor,
      });
    }
    await store.updateServiceStatus({
      id: service.id,
      status: 'applying',
      manifests: stored,
      actor,
    });
    try {
      await applier.apply([
        ...(await this.queueDependencies(service)),
        ...manifests,
      ]);
      return await store.updateServiceStatus({
        id: service.id,
        status: 'ready',
        actor,
      });
    } catch (error) {
      logger.warn('Applying GPU service failed', {
        serviceId: service.id,
        error: String(error),
      });
      return store.updateServiceStatus({
        id: service.id,
        status: 'failed',
        statusReason: `${
          (error as Error).message
        } (quota stays reserved; retry the apply or delete the service)`,
        actor,
      });
    }
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

  /** Deletes what was applied (by ownership label), releases the quota, keeps the record. */
  async teardown(id: string, actor: string): Promise<ServiceRecord> {
    const { store, applier } = this.options;
    const service = await this.get(id);
    if (service.status === 'deleted') {
      return service;
    }
    if (applier && service.mode === 'apply' && service.manifests?.length) {
      await store.updateServiceStatus({ id, status: 'deleting', actor });
      const kinds = uniqueKinds(
        service.manifests.filter(
          m =>
            (m.metadata as { labels?: Record<string, string> })?.labels?.[
              OWNERSHIP_LABELS.serviceId
            ] === id,
        ),
      );
      try {
        await applier.deleteByOwnership(id, kinds);
      } catch (error) {
        return store.updateServiceStatus({
          id,
          status: 'failed',
          statusReason: `Teardown failed: ${
            (error as Error).message
          } (quota stays reserved; retry the delete)`,
          actor,
        });
      }
    }
    return store.updateServiceStatus({
      id,
      status: 'deleted',
      statusReason: teardownReason(service, applier !== undefined),
      releaseReservation: true,
      actor,
    });
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

function uniqueKinds(manifests: StoredManifest[]) {
  const seen = new Map<
    string,
    { apiVersion: string; kind: string; namespace?: string }
  >();
  for (const m of manifests) {
    const namespace = (m.metadata as { namespace?: string } | undefined)
      ?.namespace;
    seen.set(`${m.apiVersion}/${m.kind}/${namespace ?? ''}`, {
      apiVersion: m.apiVersion,
      kind: m.kind,
      ...(namespace ? { namespace } : {}),
    });
  }
  return [...seen.values()];
}
