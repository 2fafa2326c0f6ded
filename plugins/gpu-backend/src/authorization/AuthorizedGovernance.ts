import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { InputError, NotAllowedError } from '@backstage/errors';
import {
  ApprovalView,
  ClusterDriftReport,
  gpuApprovePermission,
  gpuQuotaReadPermission,
  gpuQuotaUpdatePermission,
  gpuServiceReadPermission,
  GpuServiceView,
  Platform,
} from '@internal/backstage-plugin-gpu-common';
import {
  ApprovalPageQuery,
  AuditEventPage,
  GpuStore,
  ListAuditEventsQuery,
  Page,
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
  ): Promise<Page<ApprovalView>> {
    const visibility = await this.options.access.visibility(
      credentials,
      gpuServiceReadPermission,
    );
    if (visibility.kind === 'none') return { items: [] };
    const page = await this.options.store.listApprovalPage({
      ...query,
      visibleTo: visibility.visibleTo,
    });
    // Pending approvals show what approving now would grant beyond quota, budget and capacity.
    const items = await this.options.store.previewApprovals(page.items);
    return { items: items.map(toApprovalView), nextCursor: page.nextCursor };
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

  /** Throws unless the caller may read team-level data of the team. */
  async requireTeam(
    credentials: BackstageCredentials,
    team: string,
    verb: string,
  ): Promise<void> {
    const [visible] = await this.options.access.teamsVisible(
      credentials,
      gpuServiceReadPermission,
      [team],
    );
    if (visible === undefined) {
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
