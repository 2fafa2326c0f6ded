export { GpuBackendClient } from './GpuBackendClient';
export type {
  GpuCallOptions,
  GpuServiceDetail,
  ListServicesFilter,
} from './GpuBackendClient';
