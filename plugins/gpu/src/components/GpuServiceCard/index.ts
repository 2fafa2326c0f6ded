export { GpuServiceCard } from './GpuServiceCard';
export { GpuServiceCardContent } from './GpuServiceCardContent';
export {
  GPU_SERVICE_ID_ANNOTATION,
  gpuServiceIdOf,
  isGpuServiceAvailable,
} from './annotations';
