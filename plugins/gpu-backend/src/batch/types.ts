// The API types of the batch routes are gpu-node's, shared with its client.
export type {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from '@gpu-platform/backstage-plugin-gpu-node';
