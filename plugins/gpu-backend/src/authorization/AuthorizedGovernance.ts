import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError } from '@backstage/errors';
import {
  ApprovalListItem,
  ApprovalView,
  AuditServiceRef,
  ClusterDriftReport,
  DEFAULT_POOL_CAPACITY_POLICY,
  gpuApprovePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServiceReadPermission,
  GpuServiceView,
  Platform,
  PoolCapacityPolicy,
  PoolSubscription,
  poolSubscriptions,
} from '@gpu-platform/backstage-plugin-gpu-common';
import {
  ApprovalPageQuery,
  AuditEvent,
  AuditEventPage,
  CountedPage,
  GpuStore,
  ListAuditEventsQuery,
  QuotaRecord,
  QuotaSpec,
} from '../database';
import { ServiceManager } from '../services/ServiceManager';
import { toApprovalView } from '../services/toServiceView';
import { actorOf } from './actorOf';
import { AuthorizedServices } from './AuthorizedServices';
import { GpuAccess } from './GpuAccess';

/** Filters and paging of {@link AuthorizedGovernance.listApprovals}. */
export type ApprovalListQuery = Omit<ApprovalPageQuery, 'visibleTo'>;

/**
 * Quotas, approvals, the audit trail and cluster drift as a caller may see and change them. Team-level data (a
 * team's quota and use, its audit events) needs the `gpu.service.read` permission on the team (members, by the
 * plugin's rules); the platform-wide view needs `gpu.quota.read`; changing quotas `gpu.quota.update`; deciding
 * approvals `gpu.request.approve`, and never on one's own request (the store enforces that).
 */
export class AuthorizedGovernance {
  constructor(
    private readonly options: {
      access: GpuAccess;
      platform: Platform;
      store: GpuStore;
      services: ServiceManager;
      authorizedServices: AuthorizedServices;
      /** What admission does with a request beyond a pool's free capacity (default `approval`). */
      whenOverPoolCapacity?: PoolCapacityPolicy;
    },
  ) {}

  async getQuota(
    credentials: BackstageCredentials,
    team: string,
  ): Promise<QuotaRecord> {
    this.assertTeam(team);
    await this.requireTeam(credentials, team, 'read the quota of');
    const quota = await this.options.store.getQuota(team);
    if (!quota) {
      throw new InputError(`Team ${team} has no quota record`);
    }
    return quota;
  }

  /** The quotas of the teams the caller may read, by team name. */
  async listQuotas(credentials: BackstageCredentials): Promise<QuotaRecord[]> {
    const visible = new Set(
      await this.options.access.teamsVisible(
        credentials,
        gpuServiceReadPermission,
        this.options.platform.teams.map(t => t.name),
      ),
    );
    if (visible.size === 0) return [];
    return (await this.options.store.listQuotas()).filter(q =>
      visible.has(q.team),
    );
  }

  async putQuota(
    credentials: BackstageCredentials,
    team: string,
    quota: QuotaSpec,
  ): Promise<QuotaRecord> {
    await this.options.access.require(
      credentials,
      gpuQuotaUpdatePermission,
      `change the quota of team ${team}`,
    );
    this.assertTeam(team);
    const pools = new Set(this.options.platform.pools.map(p => p.name));
    const unknown = Object.keys(quota.pools).filter(p => !pools.has(p));
    if (unknown.length) {
      throw new InputError(
        `Unknown pool(s) ${unknown.join(', ')}; allowed: ${[...pools].join(
          ', ',
        )}`,
      );
    }
    return this.options.store.putQuota({
      team,
      quota,
      actor: actorOf(credentials),
    });
  }

  /** One page of the approvals of services the caller may read (every approval for the platform team). */
  async listApprovals(
    credentials: BackstageCredentials,
    query: ApprovalListQuery,
  ): Promise<CountedPage<ApprovalListItem>> {
    const visibility = await this.options.access.visibility(
      credentials,
      gpuServiceReadPermission,
    );
    if (visibility.kind === 'none') return { items: [], totalCount: 0 };
    const page = await this.options.store.listApprovalPage({
      ...query,
      visibleTo: visibility.visibleTo,
    });
    const listings = await this.options.store.listServicesWithReservations({
      ids: [...new Set(page.items.map(a => a.serviceId))],
    });
    // Pending approvals show why they need an approver now and what approving now would grant beyond quota, budget
    // and capacity; their services as GET /services/:id shows them. One read of the ledger for the page.
    const { views, approvals: items } =
      await this.options.authorizedServices.viewsNow(listings, page.items);
    const services = new Map(views.map(v => [v.id, v]));
    return {
      items: items.map(a => {
        const service = services.get(a.serviceId);
        return { ...toApprovalView(a), ...(service ? { service } : {}) };
      }),
      nextCursor: page.nextCursor,
      totalCount: page.totalCount,
    };
  }

  /** Approves (and then deploys) or rejects a pending request. */
  async decide(
    credentials: BackstageCredentials,
    id: string,
    decision: 'approve' | 'reject',
    body: { comment?: string; allowOverQuota?: boolean },
  ): Promise<{ approval: ApprovalView; service: GpuServiceView }> {
    await this.options.access.require(
      credentials,
      gpuApprovePermission,
      `${decision} GPU requests`,
    );
    const actor = actorOf(credentials);
    const result = await this.options.store.decideApproval({
      id,
      decision,
      actor,
      comment: body.comment,
      // Granting beyond quota or budget is an explicit choice; without it an approval that does not fit is a 409.
      allowOverQuota: decision === 'approve' && body.allowOverQuota === true,
    });
    let service = result.service;
    if (decision === 'approve' && service.status === 'approved') {
      service = await this.options.services.deploy(service, actor);
    }
    return {
      approval: toApprovalView(result.approval),
      service: await this.options.authorizedServices.view(service),
    };
  }

  /**
   * One page of audit events: with `team`, that team's (members and the platform team); without, every team's
   * for the platform team and the caller's teams' for others.
   */
  async listAudit(
    credentials: BackstageCredentials,
    query: Omit<ListAuditEventsQuery, 'team'> & { team?: string },
  ): Promise<AuditEventPage & { items: AuditedEvent[] }> {
    return this.withServices(await this.auditPage(credentials, query));
  }

  private async auditPage(
    credentials: BackstageCredentials,
    query: Omit<ListAuditEventsQuery, 'team'> & { team?: string },
  ): Promise<AuditEventPage> {
    if (query.team !== undefined) {
      await this.requireTeam(credentials, query.team, 'read the audit of');
      return this.options.store.listAuditEvents(query);
    }
    if (await this.options.access.can(credentials, gpuQuotaReadPermission)) {
      return this.options.store.listAuditEvents(query);
    }
    const teams = await this.options.access.teamsVisible(
      credentials,
      gpuServiceReadPermission,
      this.options.platform.teams.map(t => t.name),
    );
    return this.options.store.listAuditEvents({ ...query, team: teams });
  }

  /** Names each event's service (one query for the page), so the trail reads as sentences with links. */
  private async withServices(
    page: AuditEventPage,
  ): Promise<AuditEventPage & { items: AuditedEvent[] }> {
    const ids = new Set(
      page.items.map(auditedServiceId).filter((id): id is string => !!id),
    );
    if (ids.size === 0) return page;
    const services = new Map(
      (await this.options.store.listServices({ ids: [...ids] })).map(
        (s): [string, AuditServiceRef] => [
          s.id,
          {
            id: s.id,
            name: s.name,
            namespace: s.namespace,
            ...(s.entityRef ? { entityRef: s.entityRef } : {}),
          },
        ],
      ),
    );
    return {
      ...page,
      items: page.items.map(event => {
        const service = services.get(auditedServiceId(event) ?? '');
        return service ? { ...event, service } : event;
      }),
    };
  }

  /**
   * Every pool's capacity against the sum of every team's quota on it and what is held there (`gpu.quota.read`: the
   * platform-wide view), with what admission does with a request beyond a pool's free capacity.
   */
  async listPoolSubscriptions(credentials: BackstageCredentials): Promise<{
    items: PoolSubscription[];
    whenOverPoolCapacity: PoolCapacityPolicy;
  }> {
    await this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      "read every team's quota on the pools",
    );
    const [allowances, held] = await Promise.all([
      this.options.store.listAllowances(),
      this.options.store.getPoolHeldSnapshot(0),
    ]);
    return {
      items: poolSubscriptions(this.options.platform, allowances, held),
      whenOverPoolCapacity:
        this.options.whenOverPoolCapacity ?? DEFAULT_POOL_CAPACITY_POLICY,
    };
  }

  async listDrift(
    credentials: BackstageCredentials,
  ): Promise<ClusterDriftReport[]> {
    await this.options.access.require(
      credentials,
      gpuQuotaReadPermission,
      'read the cluster drift reports',
    );
    return this.options.store.listClusterDrift();
  }

  /** Whether the caller may read team-level data of the team: its quota and use, its audit events. */
  async canReadTeam(
    credentials: BackstageCredentials,
    team: string,
  ): Promise<boolean> {
    const [visible] = await this.options.access.teamsVisible(
      credentials,
      gpuServiceReadPermission,
      [team],
    );
    return visible !== undefined;
  }

  /** Throws unless the caller may read team-level data of the team. */
  async requireTeam(
    credentials: BackstageCredentials,
    team: string,
    verb: string,
  ): Promise<void> {
    if (!(await this.canReadTeam(credentials, team))) {
      throw new NotAllowedError(`You are not allowed to ${verb} team ${team}`);
    }
  }

  private assertTeam(team: string): void {
    const teams = this.options.platform.teams.map(t => t.name);
    if (!teams.includes(team)) {
      throw new InputError(
        `Unknown team ${team}; teams with a quota: ${teams.join(', ')}`,
      );
    }
  }
}

/** An audit event with the service it is about, when there is one. */
export type AuditedEvent = AuditEvent & { service?: AuditServiceRef };

/** The service an event is about: its subject, or the `serviceId` of the reservation or approval it records. */
function auditedServiceId(event: AuditEvent): string | undefined {
  if (event.subjectType === 'service') return event.subjectId;
  if (event.subjectType !== 'reservation' && event.subjectType !== 'approval') {
    return undefined;
  }
  const id = event.after?.serviceId ?? event.before?.serviceId;
  return typeof id === 'string' ? id : undefined;
}
