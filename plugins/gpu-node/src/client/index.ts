export { GpuBackendClient } from './GpuBackendClient';
export type { GpuCallOptions } from './GpuBackendClient';
