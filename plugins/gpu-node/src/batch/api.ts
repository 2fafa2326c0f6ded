import type {
  ClusterCondition,
  ClusterWorkloadStatus,
  GpuServiceDetail,
} from '@gpu-platform/backstage-plugin-gpu-common';
import type { BatchJobRequest } from './types';

/**
 * Body of `POST /api/gpu/batch-jobs`.
 *
 * @public
 */
export interface SubmitBatchJobBody {
  request: BatchJobRequest;
  /** Render and record but never apply (a GitOps controller applies the Job). */
  mode?: 'gitops';
  /** Validate and render only; nothing is applied or recorded. */
  dryRun?: boolean;
}

/**
 * What `POST /api/gpu/batch-jobs` answers.
 *
 * @public
 */
export interface BatchJobSubmission {
  /** Submission id (`gpu.backstage.io/batch-id`); `dry-run` for a dry run. */
  id: string;
  name: string;
  team: string;
  namespace: string;
  pool: string;
  /** apply: applied to the cluster; gitops: for the repository; dry-run: only rendered. */
  mode: 'apply' | 'gitops' | 'dry-run';
  /** Pods of the Job the team's quota on the pool holds at once: Kueue admits at most this parallelism. */
  podsAtOnce: number;
  /** The Job and, in apply mode, the team's queue objects applied before it. */
  manifests: GpuServiceDetail['manifests'];
}

/**
 * What `GET /api/gpu/batch-jobs/{namespace}/{name}` answers: the live Job and its Kueue Workload.
 *
 * @public
 */
export interface BatchJobStatus {
  name: string;
  namespace: string;
  team: string;
  environment: string;
  pool: string;
  cluster: string;
  /**
   * When `cluster` is a Kueue MultiKueue manager: the worker cluster that admitted the Job and runs it (the manager
   * Workload's `status.clusterName`); the Job's status is the one Kueue mirrors from there.
   */
  workerCluster?: string;
  observedAt: string;
  /** running, suspended (waiting for Kueue), succeeded or failed. */
  state: 'suspended' | 'running' | 'succeeded' | 'failed';
  /** Parallelism the Job runs with (Kueue's partial admission lowers it to what the quota holds). */
  parallelism: number;
  completions: number;
  active: number;
  succeeded: number;
  failed: number;
  conditions: ClusterCondition[];
  /** The Job's Kueue Workload; absent until Kueue has made it. */
  workload?: ClusterWorkloadStatus;
}
