/**
 * Backend library of the gpu plugin: renders the Kubernetes and Kueue manifests of the GPU platform, of a team and
 * of one GPU model service, deterministically and in apply order, and exports them as YAML for GitOps.
 *
 * @packageDocumentation
 */

export * from './batch';
export * from './devicePlugin/devicePluginConfig';
export * from './devicePlugin/devicePluginConfigName';
export * from './devicePlugin/migLayoutName';
export * from './devicePlugin/nodeConfigLabels';
export {
  DEVICE_PLUGIN_CONFIG_LABEL,
  MIG_CONFIG_LABEL,
} from './devicePlugin/poolNodeConfigs';
export type { PoolNodeConfig } from './devicePlugin/poolNodeConfigs';
export * from './hostResources';
export * from './kueue/poolResources';
export {
  GPU_UNITS_RESOURCE,
  migQuotaPlan,
  type MigQuotaPlan,
} from './kueue/migQuotaPlan';
export { MIG_QUOTA_ANNOTATION } from './kueue/renderClusterQueue';
export * from './kueue/renderDeviceClassMappings';
export * from './kueue/dynamicMig';
export * from './kueue/renderResourceTransformations';
export * from './kueue/tolerationsFor';
export * from './kueue/types';
export { environmentPriorities } from './kueue/renderWorkloadPriorityClasses';
export * from './alerts/alertRuleGroups';
export * from './alerts/renderPrometheusRules';
export * from './alerts/types';
export { renderNodePools } from './karpenter/renderNodePools';
export * from './karpenter/types';
export { FIELD_MANAGER, OWNERSHIP_LABELS } from './labels';
export type { ManifestScope } from './labels';
export * from './names/queueNames';
export * from './names/stableName';
export * from './renderPlatformManifests';
export * from './renderTeamManifests';
export * from './sortForApply';
export * from './toYaml';
export * from './renderServiceManifests';
export * from './simulation/simulatedGpuNodes';
export {
  nvidiaDeviceClasses,
  simulatedDynamicMigResourceSlices,
  simulatedResourceSlices,
} from './simulation/simulatedDra';
export { QUEUE_DEPTH_METRIC } from './service/renderAutoscaler';
export {
  LATENCY_BUDGET_ALERT,
  latencyBudgetExpr,
} from './service/renderLatencyBudgetRule';
export { modelCacheSizeGiB } from './service/renderModelCacheClaim';
export { ROLLOUT_ANNOTATION } from './service/rolloutStrategy';
export * from './service/defaults';
export * from './service/serviceNames';
export {
  BACKSTAGE_KUBERNETES_ID_LABEL,
  KUEUE_LABELS,
} from './service/serviceLabels';
export * from './service/types';
export { vllmMetricSelector } from './service/vllmArgs';
export * from './client';
export * from './permissions';
