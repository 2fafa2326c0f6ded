export type {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from './api';
export { batchPodsAtOnce } from './batchPodsAtOnce';
export { BATCH_WORKER_CONTAINER, renderBatchJob } from './renderBatchJob';
export { batchPools, resolveBatchJob } from './resolveBatchJob';
export type { ResolvedBatchJob } from './resolveBatchJob';
export * from './types';
