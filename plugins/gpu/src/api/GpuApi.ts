import { createApiRef } from '@backstage/frontend-plugin-api';
import {
  PlatformResponse,
  Quote,
  ServiceRequest,
} from '@internal/backstage-plugin-gpu-common';

/** The frontend's view of the gpu backend. */
export interface GpuApi {
  getPlatform(): Promise<PlatformResponse>;
  /**
   * Every way to run `request` (`POST /quote`): options with cost, quota, budget and policy verdict, the slices
   * the model does not fit, and a recommendation. `signal` cancels a quote that is no longer wanted.
   */
  quote(
    request: ServiceRequest,
    options?: { signal?: AbortSignal },
  ): Promise<Quote>;
}

/** @public */
export const gpuApiRef = createApiRef<GpuApi>({ id: 'plugin.gpu.service' });
