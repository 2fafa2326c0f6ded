export { ClusterConfig, DRY_RUN_TARGET } from './ClusterConfig';
export { ClusterStatusReader } from './ClusterStatusReader';
export type {
  ClusterStatusReaderOptions,
  ServiceObjects,
} from './ClusterStatusReader';
export {
  createClusterApplier,
  createClusterStatusReader,
} from './createClusterApplier';
export { DifferenceApplier, liveSignature } from './DifferenceApplier';
export { KubernetesApplyError, KubernetesRequestError } from './errors';
export type { KubernetesFailure } from './errors';
export { KubernetesApplier } from './KubernetesApplier';
export type { KubernetesApplierOptions } from './KubernetesApplier';
export { KubernetesClientFactory } from './KubernetesClientFactory';
export type { KubernetesClientFactoryOptions } from './KubernetesClientFactory';
export * from './types';
export { resolveFleet } from './resolveFleet';
export {
  WARNING_EVENTS,
  eventSubjectKey,
  subjectOfEvent,
} from './warningEvents';
