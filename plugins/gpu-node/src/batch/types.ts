/**
 * A GPU batch job: an indexed Kubernetes Job that Kueue admits from the team's LocalQueue onto a spot pool, one
 * completion index per work item (e.g. one OCR document of 500 pages).
 *
 * @public
 */
export interface BatchJobRequest {
  /** Job name, a DNS-1123 label. */
  name: string;
  team: string;
  /** One of the team's namespaces; the team's first when omitted. */
  namespace?: string;
  /** Environment whose Kueue priority class the Job gets (`kueue.x-k8s.io/priority-class`). */
  environment: string;
  /** A spot pool with whole GPUs (sharing `none`). */
  pool: string;
  /** Container image of the worker. */
  image: string;
  command?: string[];
  args?: string[];
  /** Work items: completion indexes 0..completions-1 (`JOB_COMPLETION_INDEX` in each pod). */
  completions: number;
  /** Pods at once asked for; Kueue lowers it to what the team's quota holds (partial admission). */
  parallelism: number;
  /** Fewest pods at once the Job accepts (`kueue.x-k8s.io/job-min-parallelism`); 1 when omitted. */
  minParallelism?: number;
  /** Whole GPUs of the pool per pod. */
  gpusPerPod: number;
  /** Pod failures (spot reclaims not counted) before the Job fails. */
  backoffLimit: number;
  /** Environment variables of the worker. */
  env?: Record<string, string>;
  /** Exit codes that mean the input is bad, not the node: the Job fails at once. {@link DEFAULT_NON_RETRIABLE_EXIT_CODES} when omitted. */
  nonRetriableExitCodes?: number[];
}

/**
 * Settings of {@link renderBatchJob} that are not the user's.
 *
 * @public
 */
export interface BatchJobOptions {
  /** Id of the submission, labelled on the Job and its pods (`gpu.backstage.io/batch-id`) for the audit trail. */
  batchId: string;
}

/**
 * Exit codes a batch worker uses for "bad input, retrying will not help" when the request names none.
 *
 * @public
 */
export const DEFAULT_NON_RETRIABLE_EXIT_CODES: readonly number[] = [42];

/**
 * Labels and annotations of a batch Job.
 *
 * @public
 */
export const BATCH_JOB_LABELS = {
  /** The submission's id. */
  batchId: 'gpu.backstage.io/batch-id',
  /** The pool the Job runs on. */
  pool: 'gpu.backstage.io/pool',
  /** The environment whose priority it has. */
  environment: 'gpu.backstage.io/environment',
  /** Kueue's partial admission: the fewest pods at once the Job accepts. */
  minParallelism: 'kueue.x-k8s.io/job-min-parallelism',
} as const;
