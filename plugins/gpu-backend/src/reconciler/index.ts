export { KueueReconciler } from './KueueReconciler';
export type { ReconciledCluster } from './KueueReconciler';
export {
  renderKueueObjects,
  renderTeamQueueDependencies,
} from './renderKueueObjects';
export {
  DEFAULT_RECONCILE_FREQUENCY,
  KUEUE_RECONCILE_TASK_ID,
  scheduleKueueReconciler,
} from './scheduleKueueReconciler';
export { reconciledClusters } from './reconciledClusters';
export { renderPlatformObjects } from './renderPlatformObjects';
