import { createApiRef } from '@backstage/frontend-plugin-api';
import { PlatformResponse } from '@internal/backstage-plugin-gpu-common';

/** The frontend's view of the gpu backend. */
export interface GpuApi {
  getPlatform(): Promise<PlatformResponse>;
}

/** @public */
export const gpuApiRef = createApiRef<GpuApi>({ id: 'plugin.gpu.service' });
