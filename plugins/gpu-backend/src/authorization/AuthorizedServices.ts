import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { NotFoundError } from '@backstage/errors';
import {
  CreateServiceBody,
  gpuServiceCreatePermission,
  gpuServiceDeletePermission,
  gpuServiceReadPermission,
  gpuServiceUpdatePermission,
  GpuServiceDetail,
  GpuServiceView,
  parseServiceEntityRef,
  UpdateServiceBody,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { GpuServiceResource } from '@gpu-platform/backstage-plugin-gpu-node';
import {
  ApprovalRecord,
  GpuStore,
  Page,
  ServiceListing,
  ServicePageQuery,
  ServiceRecord,
} from '../database';
import { PlacementCheck, ServiceManager } from '../services/ServiceManager';
import { ServiceStatusRefresher } from '../services/ServiceStatusRefresher';
import { toServiceView, toServiceViewWeighed } from '../services/toServiceView';
import { actorOf } from './actorOf';
import { assertComponentOfTeam, ComponentSource } from './componentOwnership';
import { GpuAccess } from './GpuAccess';

/** The service's fields the permission rules look at. */
export function serviceResource(service: ServiceRecord): GpuServiceResource {
  return {
    id: service.id,
    team: service.team,
    environment: service.environment,
    pool: service.pool,
    tier: service.tier,
  };
}

/** Filters and paging of {@link AuthorizedServices.list}. */
export type ServiceListQuery = Omit<ServicePageQuery, 'visibleTo'>;

/**
 * The GPU services as a caller may see and change them: every method takes the caller's credentials, decides the
 * `gpu-service` permission on the service (or the service being requested, once its placement is chosen) and then
 * calls the lifecycle. A service the caller may not read is reported as not found only when it does not exist;
 * otherwise the answer is 403, so the caller knows to ask its owners.
 */
export class AuthorizedServices {
  constructor(
    private readonly options: {
      access: GpuAccess;
      store: GpuStore;
      services: ServiceManager;
      statuses: ServiceStatusRefresher;
      /** The catalog's components, to check a service is bound to one of its team's; unchecked without. */
      components?: ComponentSource;
    },
  ) {}

  /** Records (or, with `dryRun`, previews) a service request for a team the caller may request for. */
  async create(
    credentials: BackstageCredentials,
    body: CreateServiceBody,
  ): Promise<
    | { created: boolean; service: GpuServiceView }
    | { created: false; preview: GpuServiceDetail }
  > {
    const { services, components } = this.options;
    const team = body.request?.team;
    if (
      components &&
      body.entityRef !== undefined &&
      typeof team === 'string' &&
      team
    ) {
      // A component of another team is refused before anything is recorded or previewed (a request without a team
      // is refused by the request's own checks).
      await assertComponentOfTeam({
        components,
        entityRef: parseServiceEntityRef(body.entityRef).ref,
        team,
        credentials,
      });
    }
    const check = this.checkPlacement(credentials, 'request a service for');
    const actor = actorOf(credentials);
    if (body.dryRun) {
      const preview = await services.preview(body, actor, check);
      return {
        created: false,
        preview: {
          ...toServiceView(preview.service, preview.reservation),
          manifests: (preview.service.manifests ??
            []) as GpuServiceDetail['manifests'],
        },
      };
    }
    const result = await services.create(body, actor, check);
    return {
      created: result.created,
      // A new service has the one reservation and approval it was created with: no need to read them back.
      service:
        result.created && result.reservation
          ? (
              await this.viewsNow([
                {
                  service: result.service,
                  reservations: [result.reservation],
                  approvals: result.approval ? [result.approval] : [],
                },
              ])
            ).views[0]
          : await this.view(result.service),
    };
  }

  /**
   * One page of the services the caller may read, each as {@link AuthorizedServices.get} shows it: a pending approval
   * weighed again now, on one read of the ledger for the page.
   */
  async list(
    credentials: BackstageCredentials,
    query: ServiceListQuery,
  ): Promise<Page<GpuServiceView>> {
    const visibility = await this.options.access.visibility(
      credentials,
      gpuServiceReadPermission,
    );
    if (visibility.kind === 'none') return { items: [] };
    const page = await this.options.store.listServicePage({
      ...query,
      visibleTo: visibility.visibleTo,
    });
    return {
      items: (await this.viewsNow(page.items)).views,
      nextCursor: page.nextCursor,
    };
  }

  /**
   * A service with its manifests and (apply mode) its status read live from the cluster. A pending approval is
   * weighed again now, as the approvals list weighs it (`GpuStore.previewApprovals`): its reasons, and the status line
   * of a service waiting for it, say why it needs an approver now (a quota or budget raised since the request drops
   * its reason); the audit trail keeps them as recorded.
   */
  async get(
    credentials: BackstageCredentials,
    id: string,
  ): Promise<GpuServiceDetail> {
    await this.authorized(credentials, id, gpuServiceReadPermission, 'read');
    const { service, clusterStatus } =
      await this.options.statuses.refreshStatus(id);
    return {
      ...(await this.view(service)),
      manifests: (service.manifests ?? []) as GpuServiceDetail['manifests'],
      ...(clusterStatus ? { clusterStatus } : {}),
    };
  }

  /** Throws unless the caller may read the service (usage, cost); answers the service. */
  async requireRead(
    credentials: BackstageCredentials,
    id: string,
  ): Promise<ServiceRecord> {
    return this.authorized(credentials, id, gpuServiceReadPermission, 'read');
  }

  /**
   * Changes a service the caller may change; with `dryRun`, what the change would record (the new spec with its
   * manifests, the reservation it would hold and the approval it would wait for), nothing written.
   */
  async update(
    credentials: BackstageCredentials,
    id: string,
    change: UpdateServiceBody,
  ): Promise<GpuServiceView | GpuServiceDetail> {
    await this.authorized(
      credentials,
      id,
      gpuServiceUpdatePermission,
      'change',
    );
    const result = await this.options.services.update(
      id,
      change,
      actorOf(credentials),
      this.checkPlacement(credentials, 'move a service to'),
    );
    if (change.dryRun) {
      return {
        ...toServiceView(result.service, result.reservation, result.approval),
        manifests: (result.service.manifests ??
          []) as GpuServiceDetail['manifests'],
      };
    }
    return this.view(result.service);
  }

  async retry(
    credentials: BackstageCredentials,
    id: string,
  ): Promise<GpuServiceView> {
    await this.authorized(credentials, id, gpuServiceUpdatePermission, 'retry');
    return this.view(
      await this.options.services.retry(
        id,
        actorOf(credentials),
        this.checkPlacement(credentials, 'retry a service for'),
      ),
    );
  }

  /** Confirms a provisional service (the template run that requested it finished); as a change of it. */
  async confirm(
    credentials: BackstageCredentials,
    id: string,
    pullRequestUrl?: string,
  ): Promise<GpuServiceView> {
    await this.authorized(
      credentials,
      id,
      gpuServiceUpdatePermission,
      'confirm',
    );
    return this.view(
      await this.options.services.confirm(
        id,
        actorOf(credentials),
        pullRequestUrl,
      ),
    );
  }

  async delete(
    credentials: BackstageCredentials,
    id: string,
  ): Promise<GpuServiceView> {
    await this.authorized(
      credentials,
      id,
      gpuServiceDeletePermission,
      'delete',
    );
    return this.view(
      await this.options.services.teardown(id, actorOf(credentials)),
    );
  }

  /**
   * The service as the API shows it, from its ledger entries and approvals, with its pending approval weighed again
   * now (see {@link AuthorizedServices.viewsNow}): the answer of a write says what GET /services/:id says next.
   */
  async view(service: ServiceRecord): Promise<GpuServiceView> {
    const { store } = this.options;
    const [reservations, approvals, pendingChange] = await Promise.all([
      store.listReservations(service.id),
      store.listApprovals({ serviceId: service.id }),
      service.mode === 'gitops'
        ? store.getPendingChange(service.id)
        : Promise.resolve(undefined),
    ]);
    return (
      await this.viewsNow([{ service, reservations, approvals, pendingChange }])
    ).views[0];
  }

  /**
   * The listed services as the API shows them, each with its latest approval weighed again now, and `approvals`
   * weighed with them: one `GpuStore.previewApprovals` for all, so one read of the ledger (and none when nothing is
   * pending). A pending approval's reasons, and the status line of a service waiting for it, say why it needs an
   * approver now (a quota or budget raised since the request drops its reason); the audit trail keeps them as
   * recorded.
   */
  async viewsNow(
    listings: ServiceListing[],
    approvals: ApprovalRecord[] = [],
  ): Promise<{ views: GpuServiceView[]; approvals: ApprovalRecord[] }> {
    const toWeigh = new Map(
      [...approvals, ...listings.flatMap(l => l.approvals.slice(-1))].map(a => [
        a.id,
        a,
      ]),
    );
    const weighed = new Map(
      (await this.options.store.previewApprovals([...toWeigh.values()])).map(
        a => [a.id, a],
      ),
    );
    return {
      views: listings.map(l => toServiceViewWeighed(l, weighed)),
      approvals: approvals.map(a => weighed.get(a.id) ?? a),
    };
  }

  private async authorized(
    credentials: BackstageCredentials,
    id: string,
    permission:
      | typeof gpuServiceReadPermission
      | typeof gpuServiceUpdatePermission
      | typeof gpuServiceDeletePermission,
    verb: string,
  ): Promise<ServiceRecord> {
    const service = await this.options.store.getService(id);
    if (!service) {
      throw new NotFoundError(`No GPU service with id '${id}'`);
    }
    await this.options.access.requireOnService(
      credentials,
      permission,
      serviceResource(service),
      `${verb} GPU service ${service.name} of team ${service.team}`,
    );
    return service;
  }

  private checkPlacement(
    credentials: BackstageCredentials,
    verb: string,
  ): PlacementCheck {
    return async draft =>
      this.options.access.requireOnService(
        credentials,
        gpuServiceCreatePermission,
        draft,
        `${verb} team ${draft.team} (${draft.environment}, ${draft.tier} on ${draft.pool})`,
      );
  }
}
