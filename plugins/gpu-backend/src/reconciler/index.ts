export { PlatformReconciler } from './PlatformReconciler';
export type {
  PlatformReconcilerOptions,
  ReconciledCluster,
} from './PlatformReconciler';
export {
  renderKueueObjects,
  renderTeamQueueDependencies,
} from './renderKueueObjects';
export {
  KUEUE_RECONCILE_TASK_ID,
  PLATFORM_RECONCILE_TASK_ID,
  schedulePlatformReconciler,
} from './schedulePlatformReconciler';
export {
  DEFAULT_RECONCILE_FREQUENCY,
  readReconcileSettings,
} from './readReconcileSettings';
export type { ReconcileSettings } from './readReconcileSettings';
export { reconciledClusters } from './reconciledClusters';
export { renderPlatformObjects } from './renderPlatformObjects';
