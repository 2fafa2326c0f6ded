import type { ClusterMode } from './types';

/**
 * The common GPU-cluster mistakes the platform checks look for, one stable id each (the same id whether the config or
 * a live cluster shows it); `cluster-read-failed` says a cluster could not be read for the live checks.
 *
 * @public
 */
export type PlatformCheckId =
  | 'gpu-nodes-untainted'
  | 'pool-shared-dev-production'
  | 'no-shared-weights-cache'
  | 'cpu-autoscaling-on-gpu'
  | 'karpenter-no-consolidate-after'
  | 'production-on-spot'
  | 'dra-api-missing'
  | 'dra-device-class-missing'
  | 'keda-missing'
  | 'keda-metrics-api-unavailable'
  | 'keda-http-add-on-missing'
  | 'hpa-metrics-adapter-missing'
  | 'team-namespace-missing'
  | 'cluster-read-failed';

/**
 * How bad a finding is: `error` costs money or availability as it stands, `warning` is a risk or a waste.
 *
 * @public
 */
export type PlatformFindingSeverity = 'warning' | 'error';

/**
 * One mistake found: where it is (a config key such as `gpu.pools[0].nodeTaints`, or on a cluster an object such
 * as `Node gpu-1` or `HorizontalPodAutoscaler ml/chat`), why it matters and how to fix it.
 *
 * @public
 */
export interface PlatformFinding {
  id: PlatformCheckId;
  severity: PlatformFindingSeverity;
  /** `config`: the `gpu` section of app-config; `cluster`: what a cluster Backstage applies to holds. */
  source: 'config' | 'cluster';
  /** The cluster, for findings of source `cluster`. */
  cluster?: string;
  /** The config key or the object (`Kind name`, `Kind namespace/name`). */
  where: string;
  /** What is wrong and why it matters. */
  message: string;
  /** What to change. */
  fix: string;
}

/**
 * How one configured cluster was checked: `live` for `apply` clusters (read with Backstage's credentials), or only
 * through the config for `gitops` and `dry-run` clusters, which Backstage does not read.
 *
 * @public
 */
export interface PlatformCheckCluster {
  name: string;
  mode: ClusterMode;
  live: boolean;
}

/**
 * Body of `GET /api/gpu/platform/checks`.
 *
 * @public
 */
export interface PlatformChecksResponse {
  checkedAt: string;
  clusters: PlatformCheckCluster[];
  /** Config findings first, then each live cluster's in the order of `gpu.clusters`. */
  findings: PlatformFinding[];
}
