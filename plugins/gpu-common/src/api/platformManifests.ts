import { ClusterMode } from './types';

/**
 * A directory of the platform's GitOps export: the GPU Operator's ConfigMaps, the Kueue objects (ResourceFlavors,
 * Cohort, WorkloadPriorityClasses, ClusterQueues, LocalQueues), the Karpenter NodePools and the alert
 * PrometheusRules.
 *
 * @public
 */
export type PlatformManifestPart =
  | 'gpu-operator'
  | 'kueue'
  | 'karpenter'
  | 'monitoring';

/**
 * One file of the export: `path` relative to the repository directory it goes to (`kueue/clusterqueue-ml-platform.yaml`,
 * `kustomization.yaml`), `content` its YAML.
 *
 * @public
 */
export interface PlatformManifestFile {
  path: string;
  content: string;
}

/**
 * Every platform object a cluster needs, as files for a GitOps repository (`GET /api/gpu/platform/manifests`):
 * rendered from the platform config, its operations settings and the stored team quotas, the objects in apply order
 * with a `kustomization.yaml` listing them, and the parts left out with the reason.
 *
 * @public
 */
export interface PlatformManifestsResponse {
  cluster: string;
  mode: ClusterMode;
  files: PlatformManifestFile[];
  absent: { part: PlatformManifestPart; reason: string }[];
}
