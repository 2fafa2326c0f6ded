import { createApiRef } from '@backstage/frontend-plugin-api';
import {
  ApprovalDecisionBody,
  ApprovalDecisionResponse,
  ApprovalPageView,
  ApprovalQuery,
  AuditEventPageView,
  AuditQuery,
  CompactQuote,
  GpuServiceDetail,
  OverviewServicePage,
  OverviewServiceQuery,
  OverviewSummary,
  PlatformChecksResponse,
  PlatformResponse,
  PutTeamQuotaBody,
  Quote,
  ServiceCost,
  ServiceRequest,
  ServiceUsage,
  TeamCost,
  TeamQuotaView,
  UpdateServiceBody,
  GpuServiceView,
  PoolSubscriptionsResponse,
  ServiceStatus,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The frontend's view of the gpu backend.
 *
 * @public
 */
export interface GpuApi {
  getPlatform(): Promise<PlatformResponse>;

  /**
   * `POST /quote`: every way to run `request` (options with cost, quota, budget and policy verdict, the slices the
   * model does not fit, a recommendation). `signal` cancels a quote that is no longer wanted.
   */
  quote(
    request: ServiceRequest,
    options?: { signal?: AbortSignal },
  ): Promise<Quote>;

  /**
   * `POST /quote?detail=summary`: the quote in a few KB, one row per tier and pool with the figures the tier step
   * shows (fit, cost, quota, policy verdict) and the recommendation; the reasons, memory breakdown and token prices
   * of one row are `quote` with the request's `tier` and `pool`.
   */
  quoteSummary(
    request: ServiceRequest,
    options?: { signal?: AbortSignal },
  ): Promise<CompactQuote>;

  /**
   * `GET /services/:id`: the service with its manifests and, in apply mode, `clusterStatus` read live from the
   * cluster; rejects with a 404 `ResponseError` for an unknown id.
   */
  getService(id: string): Promise<GpuServiceDetail>;

  /**
   * `PATCH /services/:id`: changes tier, pool, replicas or model. The answer is the changed service, or the
   * unchanged one with a pending approval of the change.
   */
  updateService(id: string, change: UpdateServiceBody): Promise<GpuServiceView>;

  /** `DELETE /services/:id`: tears the service down and releases its quota (the record is kept, `deleted`). */
  deleteService(id: string): Promise<GpuServiceView>;

  /**
   * `GET /services`: one page of the services the caller may read (others' are left out), newest first, with their
   * conditions.
   */
  listServices(query?: {
    status?: ServiceStatus;
    team?: string;
    limit?: number;
    cursor?: string;
  }): Promise<{ items: GpuServiceView[]; nextCursor?: string }>;

  /** `GET /approvals`: one page, oldest first, each approval with its service. */
  listApprovals(query?: ApprovalQuery): Promise<ApprovalPageView>;

  /** `POST /approvals/:id/approve|reject`. */
  decideApproval(
    id: string,
    decision: 'approve' | 'reject',
    body?: ApprovalDecisionBody,
  ): Promise<ApprovalDecisionResponse>;

  /** `GET /quotas`: every readable team's quota per pool and what is held against it, by team name. */
  listTeamQuotas(): Promise<TeamQuotaView[]>;

  /**
   * `GET /pools/subscription`: every pool's capacity against the sum of the teams' quotas on it and what is held, and
   * what admission does with a request beyond a pool's free capacity (gpu.quota.read).
   */
  listPoolSubscriptions(): Promise<PoolSubscriptionsResponse>;

  /** `GET /teams/:team/quota`: nominal quota per pool and what is held against it. */
  getTeamQuota(team: string): Promise<TeamQuotaView>;

  /** `PUT /teams/:team/quota`: replaces the team's quota and budget. */
  putTeamQuota(team: string, body: PutTeamQuotaBody): Promise<TeamQuotaView>;

  /** `GET /audit`, newest first. */
  listAuditEvents(query?: AuditQuery): Promise<AuditEventPageView>;

  /** `GET /services/:id/usage?window=`. */
  getServiceUsage(id: string, window: string): Promise<ServiceUsage>;

  /** `GET /services/:id/cost?window=`. */
  getServiceCost(id: string, window: string): Promise<ServiceCost>;

  /** `GET /teams/:team/cost?window=`. */
  getTeamCost(team: string, window: string): Promise<TeamCost>;

  /**
   * `GET /overview?window=&cluster=`: totals over every live service, cost and waste per team and pool, and the
   * first page of the cost and waste leaderboards; with `cluster`, that cluster's services, pools and teams only.
   */
  getOverview(window: string, cluster?: string): Promise<OverviewSummary>;

  /**
   * `GET /overview/services?window=&cluster=&leaderboard=...`: one page of a leaderboard of the overview, sorted and
   * searched by the backend.
   */
  listOverviewServices(
    window: string,
    query: OverviewServiceQuery,
    cluster?: string,
  ): Promise<OverviewServicePage>;

  /**
   * `GET /cost/export?firstDay=&lastDay=`: the daily cost of every service and pool as FOCUS CSV, with the file name
   * the backend gives it.
   */
  exportCosts(period: CostExportPeriod): Promise<CostExportFile>;

  /** `GET /platform/checks`: the common GPU-cluster mistakes in the config and on the apply clusters. */
  getPlatformChecks(): Promise<PlatformChecksResponse>;
}

/**
 * The UTC days of a cost export (`yyyy-MM-dd`, both included); the backend's defaults when absent.
 *
 * @public
 */
export interface CostExportPeriod {
  firstDay?: string;
  lastDay?: string;
}

/**
 * An exported CSV file.
 *
 * @public
 */
export interface CostExportFile {
  filename: string;
  csv: string;
}

/** @public */
export const gpuApiRef = createApiRef<GpuApi>({ id: 'plugin.gpu.service' });
