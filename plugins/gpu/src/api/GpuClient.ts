import { DiscoveryApi, FetchApi } from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  ApprovalDecisionBody,
  ApprovalDecisionResponse,
  ApprovalPageView,
  ApprovalQuery,
  AuditEventPageView,
  AuditQuery,
  CompactQuote,
  GpuServiceDetail,
  GpuServiceView,
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
  PoolSubscriptionsResponse,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { CostExportFile, CostExportPeriod, GpuApi } from './GpuApi';

type Query = Record<string, string | number | undefined>;

/**
 * Calls the `gpu` backend plugin through discovery and the signed-in fetch.
 *
 * @public
 */
export class GpuClient implements GpuApi {
  private readonly discoveryApi: DiscoveryApi;
  private readonly fetchApi: FetchApi;

  constructor(options: { discoveryApi: DiscoveryApi; fetchApi: FetchApi }) {
    this.discoveryApi = options.discoveryApi;
    this.fetchApi = options.fetchApi;
  }

  async getPlatform(): Promise<PlatformResponse> {
    return this.get<PlatformResponse>('/platform');
  }

  async quote(
    request: ServiceRequest,
    options?: { signal?: AbortSignal },
  ): Promise<Quote> {
    return this.send('POST', '/quote', request, options?.signal);
  }

  async quoteSummary(
    request: ServiceRequest,
    options?: { signal?: AbortSignal },
  ): Promise<CompactQuote> {
    return this.send('POST', '/quote', request, options?.signal, {
      detail: 'summary',
    });
  }

  async getService(id: string): Promise<GpuServiceDetail> {
    return this.get(`/services/${encodeURIComponent(id)}`);
  }

  async updateService(
    id: string,
    change: UpdateServiceBody,
  ): Promise<GpuServiceView> {
    return this.send('PATCH', `/services/${encodeURIComponent(id)}`, change);
  }

  async deleteService(id: string): Promise<GpuServiceView> {
    return this.send('DELETE', `/services/${encodeURIComponent(id)}`);
  }

  async listServices(
    query: Parameters<GpuApi['listServices']>[0] = {},
  ): Promise<{ items: GpuServiceView[]; nextCursor?: string }> {
    return this.get('/services', { ...query });
  }

  async listApprovals(query: ApprovalQuery = {}): Promise<ApprovalPageView> {
    return this.get('/approvals', { ...query });
  }

  async decideApproval(
    id: string,
    decision: 'approve' | 'reject',
    body: ApprovalDecisionBody = {},
  ): Promise<ApprovalDecisionResponse> {
    return this.send(
      'POST',
      `/approvals/${encodeURIComponent(id)}/${decision}`,
      body,
    );
  }

  async listTeamQuotas(): Promise<TeamQuotaView[]> {
    return (await this.get<{ items: TeamQuotaView[] }>('/quotas')).items;
  }

  async listPoolSubscriptions(): Promise<PoolSubscriptionsResponse> {
    return this.get('/pools/subscription');
  }

  async getTeamQuota(team: string): Promise<TeamQuotaView> {
    return this.get(`/teams/${encodeURIComponent(team)}/quota`);
  }

  async putTeamQuota(
    team: string,
    body: PutTeamQuotaBody,
  ): Promise<TeamQuotaView> {
    return this.send('PUT', `/teams/${encodeURIComponent(team)}/quota`, body);
  }

  async listAuditEvents(query: AuditQuery = {}): Promise<AuditEventPageView> {
    return this.get('/audit', { ...query });
  }

  async getServiceUsage(id: string, window: string): Promise<ServiceUsage> {
    return this.get(`/services/${encodeURIComponent(id)}/usage`, { window });
  }

  async getServiceCost(id: string, window: string): Promise<ServiceCost> {
    return this.get(`/services/${encodeURIComponent(id)}/cost`, { window });
  }

  async getTeamCost(team: string, window: string): Promise<TeamCost> {
    return this.get(`/teams/${encodeURIComponent(team)}/cost`, { window });
  }

  async getOverview(
    window: string,
    cluster?: string,
  ): Promise<OverviewSummary> {
    return this.get('/overview', {
      window,
      ...(cluster !== undefined && { cluster }),
    });
  }

  async listOverviewServices(
    window: string,
    query: OverviewServiceQuery,
    cluster?: string,
  ): Promise<OverviewServicePage> {
    return this.get('/overview/services', {
      window,
      ...query,
      ...(cluster !== undefined && { cluster }),
    });
  }

  async exportCosts(period: CostExportPeriod): Promise<CostExportFile> {
    const res = await this.fetchApi.fetch(
      await this.url('/cost/export', { ...period }),
    );
    if (!res.ok) {
      throw await ResponseError.fromResponse(res);
    }
    const disposition = res.headers.get('content-disposition') ?? '';
    const filename =
      /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'gpu-cost-focus.csv';
    return { filename, csv: await res.text() };
  }

  async getPlatformChecks(): Promise<PlatformChecksResponse> {
    return this.get('/platform/checks');
  }

  private async url(path: string, query?: Query): Promise<string> {
    const baseUrl = await this.discoveryApi.getBaseUrl('gpu');
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    const search = params.toString();
    return `${baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  private async get<T>(path: string, query?: Query): Promise<T> {
    const res = await this.fetchApi.fetch(await this.url(path, query));
    if (!res.ok) {
      throw await ResponseError.fromResponse(res);
    }
    return (await res.json()) as T;
  }

  private async send<T>(
    method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    query?: Query,
  ): Promise<T> {
    const res = await this.fetchApi.fetch(await this.url(path, query), {
      method,
      ...(body === undefined
        ? {}
        : {
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          }),
      signal,
    });
    if (!res.ok) {
      throw await ResponseError.fromResponse(res);
    }
    return (await res.json()) as T;
  }
}
