import {
  DiscoveryApi,
  FetchApi,
} from '@backstage/frontend-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  PlatformResponse,
  Quote,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';
import { GpuApi } from './GpuApi';

/** Calls the `gpu` backend plugin through discovery and the signed-in fetch. */
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
    const baseUrl = await this.discoveryApi.getBaseUrl('gpu');
    const res = await this.fetchApi.fetch(`${baseUrl}/quote`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
      signal: options?.signal,
    });
    if (!res.ok) {
      throw await ResponseError.fromResponse(res);
    }
    return (await res.json()) as Quote;
  }

  private async get<T>(path: string): Promise<T> {
    const baseUrl = await this.discoveryApi.getBaseUrl('gpu');
    const res = await this.fetchApi.fetch(`${baseUrl}${path}`);
    if (!res.ok) {
      throw await ResponseError.fromResponse(res);
    }
    return (await res.json()) as T;
  }
}
