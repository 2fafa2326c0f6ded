import {
  ApprovalOrderBy,
  ApprovalDecisionBody,
  ApprovalDecisionResponse,
  ApprovalPageView,
  ApprovalQuery,
  ApprovalView,
  AuditEventPageView,
  AuditEventView,
  AuditQuery,
  compactQuote,
  GpuServiceDetail,
  GpuServiceView,
  Overview,
  OVERVIEW_LEADERBOARD_DEFAULT_ORDER,
  OverviewLeaderboard,
  overviewLeaderboardRows,
  OverviewServicePage,
  OverviewServiceQuery,
  overviewTotals,
  PlatformChecksResponse,
  parseUsd,
  PlatformResponse,
  PutTeamQuotaBody,
  quoteService,
  ServiceCost,
  ServiceRequest,
  ServiceUsage,
  SortOrder,
  TeamCost,
  formatUsd,
  TeamQuotaView,
  UpdateServiceBody,
  validateServiceRequest,
  gpuUnitsOf,
  PoolCapacityPolicy,
  PoolHeldUnits,
  poolSubscriptions,
  PoolSubscriptionsResponse,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { CostExportFile, CostExportPeriod, GpuApi } from '../api';
import { platform, teamQuota } from './gpuFixtures';
import { responseError } from './responseError';

/**
 * An in-memory gpu backend for component tests: approvals, quotas and the audit trail change as the real routes
 * change them (a decision moves the approval and the service's status and holds the quota; a quota edit replaces
 * the team's quota), so a test sees the page refresh with new data. Usage, cost and overview answers are set per
 * test. Every call is recorded in `calls`.
 */
export class FakeGpuApi implements GpuApi {
  readonly calls: Array<{ method: keyof GpuApi; args: unknown[]; at: number }> =
    [];
  platform: PlatformResponse = { platform, clusters: [] };
  /** Services by id; a plain view is answered with no manifests and no `clusterStatus` (dry-run, GitOps). */
  services = new Map<string, GpuServiceView | GpuServiceDetail>();
  /**
   * Answers of `getService` for an id, one per read, the last one repeated (e.g. a service applied to the cluster:
   * waiting for Kueue, then admitted, then ready). Each answer also replaces the id's entry in `services`.
   */
  serviceAnswers = new Map<string, GpuServiceDetail[]>();
  approvals: ApprovalView[] = [];
  quotas = new Map<string, TeamQuotaView>(
    platform.teams.map(t => [t.name, teamQuota(t.name)]),
  );
  audit: AuditEventView[] = [];
  /** Answers of the usage and cost routes; reject to simulate failures. */
  usage?: (id: string, window: string) => Promise<ServiceUsage>;
  cost?: (id: string, window: string) => Promise<ServiceCost>;
  teamCost?: (team: string, window: string) => Promise<TeamCost>;
  /**
   * The whole overview the backend computes (every service); the fake answers `getOverview` with its totals and
   * the first page of each leaderboard and `listOverviewServices` with a page, in the backend's order
   * (`overviewLeaderboardRows`), its cursors the offset of the next page.
   */
  overview?: (window: string, cluster?: string) => Promise<Overview>;
  /** Answer of the cost export; reject to simulate a failure. */
  costExport?: (period: CostExportPeriod) => Promise<CostExportFile>;
  /** Answer of the platform checks; reject to simulate a failure. */
  platformChecks?: () => Promise<PlatformChecksResponse>;
  /** When set, the next decision, quota change, service change or decommission fails with this error. */
  failNextChange?: () => Promise<Error>;

  private record(method: keyof GpuApi, ...args: unknown[]) {
    this.calls.push({ method, args, at: Date.now() });
  }

  callsOf(method: keyof GpuApi): unknown[][] {
    return this.calls.filter(c => c.method === method).map(c => c.args);
  }

  /** When each call of `method` was made, by `Date.now()` (fake time under jest's fake timers). */
  timesOf(method: keyof GpuApi): number[] {
    return this.calls.filter(c => c.method === method).map(c => c.at);
  }

  async getPlatform() {
    this.record('getPlatform');
    return this.platform;
  }

  /** The real domain quote on the fixture platform, for a team with nothing reserved. */
  async quote(request: ServiceRequest) {
    this.record('quote', request);
    const current = this.platform.platform;
    return quoteService(current, validateServiceRequest(current, request), {
      reservedGpuUnits: {},
      committedMonthlyCost: 0,
    });
  }

  /** `POST /quote?detail=summary`: `compactQuote` of the same quote, as the backend route answers it. */
  async quoteSummary(request: ServiceRequest) {
    this.record('quoteSummary', request);
    const current = this.platform.platform;
    return compactQuote(
      quoteService(current, validateServiceRequest(current, request), {
        reservedGpuUnits: {},
        committedMonthlyCost: 0,
      }),
    );
  }

  async getService(id: string): Promise<GpuServiceDetail> {
    this.record('getService', id);
    const answers = this.serviceAnswers.get(id);
    if (answers && answers.length > 0) {
      this.services.set(id, answers.length > 1 ? answers.shift()! : answers[0]);
    }
    const service = this.services.get(id);
    if (!service) {
      throw await responseError(
        404,
        'Not Found',
        'NotFoundError',
        `No GPU service with id ${id}`,
      );
    }
    return { manifests: [], ...service };
  }

  /**
   * Re-quotes the service with the change as the backend does: a recommendation that needs approval leaves the
   * service as it is with a pending change approval; otherwise the service takes the new placement and cost.
   */
  async updateService(
    id: string,
    change: UpdateServiceBody,
  ): Promise<GpuServiceView> {
    this.record('updateService', id, change);
    if (this.failNextChange) {
      const fail = this.failNextChange;
      this.failNextChange = undefined;
      throw await fail();
    }
    const current = await this.existing(id);
    const request = { ...current.request, ...change };
    const { recommended } = await this.quote(request);
    this.calls.pop();
    if (!recommended) {
      throw await responseError(
        400,
        'Bad Request',
        'InputError',
        `No tier and pool can run ${current.name}`,
      );
    }
    if (recommended.verdict === 'needs-approval') {
      const approval: ApprovalView = {
        id: `change-${id}`,
        serviceId: id,
        team: current.team,
        kind: 'change',
        state: 'pending',
        reasons: recommended.reasons.map(message => ({
          code: 'policy',
          message,
        })),
        requestedBy: 'user:default/guest',
        requestedAt: new Date().toISOString(),
      };
      this.approvals.push(approval);
      const pending = { ...current, approval };
      this.services.set(id, pending);
      return pending;
    }
    const changed: GpuServiceView = {
      ...current,
      request: validateServiceRequest(this.platform.platform, request),
      placement: {
        tier: recommended.slice.tier,
        pool: recommended.slice.pool,
        gpusPerReplica: recommended.slice.gpusPerReplica,
        ...(recommended.slice.migProfile
          ? { migProfile: recommended.slice.migProfile }
          : {}),
      },
      gpuEquivalents: recommended.gpuEquivalents,
      monthlyCost: formatUsd(recommended.cost.monthly),
      updatedAt: new Date().toISOString(),
    };
    this.services.set(id, changed);
    return changed;
  }

  /** Tears the service down: `deleted`, its reservation released. */
  async deleteService(id: string): Promise<GpuServiceView> {
    this.record('deleteService', id);
    if (this.failNextChange) {
      const fail = this.failNextChange;
      this.failNextChange = undefined;
      throw await fail();
    }
    const current = await this.existing(id);
    const deleted: GpuServiceView = {
      ...current,
      status: 'deleted',
      statusReason: 'torn down',
      updatedAt: new Date().toISOString(),
    };
    this.services.set(id, deleted);
    this.serviceAnswers.delete(id);
    return deleted;
  }

  private async existing(id: string): Promise<GpuServiceView> {
    const service = this.services.get(id);
    if (!service) {
      throw await responseError(
        404,
        'Not Found',
        'NotFoundError',
        `No GPU service with id '${id}'`,
      );
    }
    return service;
  }

  /**
   * As the backend pages: oldest first unless `orderBy` and `order` say otherwise, `search` in the service or team name
   * or the requester, opaque cursors of one order.
   */
  /** The stored services, newest first, filtered as the backend's list is (by status and team; no paging). */
  async listServices(query: Parameters<GpuApi['listServices']>[0] = {}) {
    this.record('listServices', query);
    const items = [...this.services.values()]
      .filter(s => !query.status || s.status === query.status)
      .filter(s => !query.team || s.team === query.team)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, query.limit ?? 100);
    return { items: items as GpuServiceView[] };
  }

  async listApprovals(query: ApprovalQuery = {}): Promise<ApprovalPageView> {
    this.record('listApprovals', query);
    const search = query.search?.toLocaleLowerCase('en-US');
    const matching = this.approvals
      .filter(a => !query.state || a.state === query.state)
      .filter(a => !query.team || a.team === query.team)
      .filter(
        a =>
          !search ||
          [this.services.get(a.serviceId)?.name ?? '', a.team, a.requestedBy]
            .map(text => text.toLocaleLowerCase('en-US'))
            .some(text => text.includes(search)),
      );
    const orderBy = query.orderBy ?? 'requestedAt';
    const order = query.order ?? 'asc';
    const sorted = this.sortApprovals(matching, orderBy, order);
    // The cursor says which order it pages, as the backend's does: another order is a 400.
    const sortKey = `${orderBy}.${order}`;
    let start = 0;
    if (query.cursor) {
      const [cursorSort, offset] = query.cursor.split(':');
      if (cursorSort !== sortKey) {
        throw await responseError(
          400,
          'Bad Request',
          'InputError',
          `cursor is the nextCursor of a page sorted by ${cursorSort}, not by ${sortKey}`,
        );
      }
      start = Number(offset);
    }
    const limit = query.limit ?? 50;
    const page = sorted.slice(start, start + limit);
    return {
      items: page.map(a => {
        const service = this.services.get(a.serviceId);
        return service ? { ...a, service } : a;
      }),
      nextCursor:
        start + limit < sorted.length
          ? `${sortKey}:${start + limit}`
          : undefined,
      totalCount: sorted.length,
    };
  }

  /** The backend's orders: the key in `order`, ties by approval id ascending. */
  private sortApprovals(
    approvals: ApprovalView[],
    orderBy: ApprovalOrderBy,
    order: SortOrder,
  ): ApprovalView[] {
    const key = (a: ApprovalView): string | number => {
      switch (orderBy) {
        case 'team':
          return a.team;
        case 'service':
          return this.services.get(a.serviceId)?.name ?? '';
        case 'monthlyCost':
          return a.overage?.monthlyCostMicros ?? 0;
        default:
          return Date.parse(a.requestedAt);
      }
    };
    const sign = order === 'asc' ? 1 : -1;
    return [...approvals].sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return a.id < b.id ? -1 : 1;
    });
  }

  async decideApproval(
    id: string,
    decision: 'approve' | 'reject',
    body: ApprovalDecisionBody = {},
  ): Promise<ApprovalDecisionResponse> {
    this.record('decideApproval', id, decision, body);
    if (this.failNextChange) {
      const fail = this.failNextChange;
      this.failNextChange = undefined;
      throw await fail();
    }
    const index = this.approvals.findIndex(a => a.id === id);
    if (index < 0) {
      throw await responseError(
        404,
        'Not Found',
        'NotFoundError',
        `No approval ${id}`,
      );
    }
    const approval: ApprovalView = {
      ...this.approvals[index],
      state: decision === 'approve' ? 'approved' : 'rejected',
      decidedBy: 'user:default/guest',
      decidedAt: new Date().toISOString(),
      comment: body.comment,
    };
    this.approvals[index] = approval;
    const before = this.services.get(approval.serviceId)!;
    const service: GpuServiceView = {
      ...before,
      status: decision === 'approve' ? 'approved' : 'rejected',
      approval,
    };
    this.services.set(service.id, service);
    if (decision === 'approve') {
      const quota = this.quotas.get(service.team)!;
      const pool = service.placement.pool;
      this.quotas.set(service.team, {
        ...quota,
        reservedGpuEquivalents: {
          ...quota.reservedGpuEquivalents,
          [pool]:
            (quota.reservedGpuEquivalents[pool] ?? 0) + service.gpuEquivalents,
        },
        reservedMonthlyCostMicros:
          quota.reservedMonthlyCostMicros +
          parseUsd(service.monthlyCost.replace(/[$,]/g, '')),
      });
    }
    // As the backend records a decision: the approval before and after.
    this.addAudit(
      `approval.${decision}`,
      'approval',
      id,
      service.team,
      { ...approval, state: 'pending', decidedBy: undefined },
      { ...approval },
    );
    return { approval, service };
  }

  async listTeamQuotas(): Promise<TeamQuotaView[]> {
    this.record('listTeamQuotas');
    return [...this.quotas.values()].sort((a, b) =>
      a.team.localeCompare(b.team),
    );
  }

  /** What `listPoolSubscriptions` says admission does with a request beyond a pool's free capacity. */
  whenOverPoolCapacity: PoolCapacityPolicy = 'approval';

  async listPoolSubscriptions(): Promise<PoolSubscriptionsResponse> {
    this.record('listPoolSubscriptions');
    const quotas = [...this.quotas.values()];
    const held: Record<string, PoolHeldUnits> = {};
    for (const quota of quotas) {
      for (const [pool, equivalents] of Object.entries(
        quota.reservedGpuEquivalents,
      )) {
        const entry = (held[pool] ??= { units: 0, unitsByProfile: {} });
        entry.units += gpuUnitsOf(equivalents, 'reserved');
      }
    }
    return {
      items: poolSubscriptions(
        this.platform.platform,
        quotas.map(q => ({
          team: q.team,
          gpuUnits: Object.fromEntries(
            Object.entries(q.pools).map(([pool, n]) => [
              pool,
              gpuUnitsOf(n, 'quota'),
            ]),
          ),
          monthlyBudgetMicros: q.monthlyBudgetMicros,
        })),
        held,
      ),
      whenOverPoolCapacity: this.whenOverPoolCapacity,
    };
  }

  async getTeamQuota(team: string) {
    this.record('getTeamQuota', team);
    const quota = this.quotas.get(team);
    if (!quota) {
      throw await responseError(
        400,
        'Bad Request',
        'InputError',
        `Unknown team ${team}`,
      );
    }
    return quota;
  }

  async putTeamQuota(team: string, body: PutTeamQuotaBody) {
    this.record('putTeamQuota', team, body);
    if (this.failNextChange) {
      const fail = this.failNextChange;
      this.failNextChange = undefined;
      throw await fail();
    }
    const before = await this.getTeamQuota(team);
    const after: TeamQuotaView = {
      ...before,
      pools: body.pools,
      monthlyBudgetMicros: parseUsd(body.monthlyBudget),
      updatedBy: 'user:default/guest',
      updatedAt: new Date().toISOString(),
    };
    this.quotas.set(team, after);
    this.addAudit(
      'quota.put',
      'quota',
      team,
      team,
      { pools: before.pools },
      { pools: after.pools },
    );
    return after;
  }

  async listAuditEvents(query: AuditQuery = {}): Promise<AuditEventPageView> {
    this.record('listAuditEvents', query);
    const limit = query.limit ?? 100;
    const asc = query.order === 'asc';
    const matching = this.audit.filter(
      e => query.team === undefined || e.team === query.team,
    );
    const inOrder = asc ? matching : [...matching].reverse();
    // As the backend's: an oldest-first cursor is `asc.<id>`, a newest-first one the id; the other order's is a 400.
    const prefix = asc ? 'asc.' : '';
    if (query.cursor && query.cursor.startsWith('asc.') !== asc) {
      throw await responseError(
        400,
        'Bad Request',
        'InputError',
        `cursor ${query.cursor} is the nextCursor of a page of the other order`,
      );
    }
    const start = query.cursor
      ? inOrder.findIndex(e => prefix + e.id === query.cursor) + 1
      : 0;
    const items = inOrder.slice(start, start + limit).map(event => {
      const service = this.auditedService(event);
      return service ? { ...event, service } : event;
    });
    return {
      items,
      nextCursor:
        start + limit < inOrder.length
          ? prefix + items[items.length - 1].id
          : undefined,
      totalCount: inOrder.length,
    };
  }

  async getServiceUsage(id: string, window: string) {
    this.record('getServiceUsage', id, window);
    return this.answer(this.usage, id, window);
  }

  async getServiceCost(id: string, window: string) {
    this.record('getServiceCost', id, window);
    return this.answer(this.cost, id, window);
  }

  async getTeamCost(team: string, window: string) {
    this.record('getTeamCost', team, window);
    return this.answer(this.teamCost, team, window);
  }

  async getOverview(window: string, cluster?: string) {
    // The cluster is recorded only when one is asked for, as the client sends it.
    this.record('getOverview', window, ...(cluster ? [cluster] : []));
    const overview = await this.answer(this.overview, window, cluster);
    const firstPage = (leaderboard: OverviewLeaderboard) =>
      leaderboardPage(overview, { leaderboard, limit: 10 });
    return {
      ...overviewTotals(overview),
      leaderboards: { cost: firstPage('cost'), waste: firstPage('waste') },
    };
  }

  async listOverviewServices(
    window: string,
    query: OverviewServiceQuery,
    cluster?: string,
  ) {
    this.record(
      'listOverviewServices',
      window,
      query,
      ...(cluster ? [cluster] : []),
    );
    return leaderboardPage(
      await this.answer(this.overview, window, cluster),
      query,
    );
  }

  async exportCosts(period: CostExportPeriod) {
    this.record('exportCosts', period);
    return this.answer(this.costExport, period);
  }

  async getPlatformChecks() {
    this.record('getPlatformChecks');
    return this.answer(this.platformChecks);
  }

  /** The service of an event, named as the backend names it. */
  private auditedService(event: AuditEventView) {
    const id =
      event.subjectType === 'service'
        ? event.subjectId
        : event.after?.serviceId ?? event.before?.serviceId;
    const service = typeof id === 'string' ? this.services.get(id) : undefined;
    return (
      service && {
        id: service.id,
        name: service.name,
        namespace: service.namespace,
        ...(service.entityRef ? { entityRef: service.entityRef } : {}),
      }
    );
  }

  addAudit(
    action: string,
    subjectType: AuditEventView['subjectType'],
    subjectId: string,
    team: string | undefined,
    before?: Record<string, unknown>,
    after?: Record<string, unknown>,
  ) {
    this.audit.push({
      id: String(this.audit.length + 1),
      at: new Date().toISOString(),
      actor: 'user:default/guest',
      action,
      subjectType,
      subjectId,
      team,
      before,
      after,
    });
  }

  private async answer<A extends unknown[], T>(
    handler: ((...args: A) => Promise<T>) | undefined,
    ...args: A
  ): Promise<T> {
    if (!handler) {
      throw await responseError(
        404,
        'Not Found',
        'NotFoundError',
        'route not set up in this test',
      );
    }
    return handler(...args);
  }
}

/** A page of a leaderboard as the backend pages it; the fake's cursor is the offset of the page. */
function leaderboardPage(
  overview: Overview,
  query: OverviewServiceQuery,
): OverviewServicePage {
  const leaderboard = query.leaderboard ?? 'cost';
  const rows = overviewLeaderboardRows(overview, {
    leaderboard,
    orderBy: query.orderBy ?? OVERVIEW_LEADERBOARD_DEFAULT_ORDER[leaderboard],
    order: query.order ?? 'desc',
    search: query.search?.trim() ?? '',
  });
  const offset = query.cursor ? Number(query.cursor) : 0;
  const limit = query.limit ?? 10;
  const items = rows.slice(offset, offset + limit);
  const end = offset + items.length;
  return {
    items,
    ...(end < rows.length && { nextCursor: String(end) }),
    totalCount: rows.length,
  };
}
