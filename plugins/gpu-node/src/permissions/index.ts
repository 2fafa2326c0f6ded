export {
  gpuServiceResourceRef,
  type GpuServiceResource,
  type GpuServiceQuery,
} from './gpuServiceResource';
export { gpuServicePermissionRules, teamsOfClaims } from './rules';
export {
  gpuServiceConditions,
  createGpuServiceConditionalDecision,
} from './conditions';
export { GpuPlatformPolicy } from './GpuPlatformPolicy';
