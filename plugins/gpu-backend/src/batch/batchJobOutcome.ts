import { BatchJobOutcome } from '@gpu-platform/backstage-plugin-gpu-common';
import type { BatchJobRecord } from '../database/types';

/** The release reason of a batch job whose Job completed (its cluster reported it Complete). */
export const JOB_COMPLETED = 'the Job completed';
/** The release reason of a batch job whose Job failed (its cluster reported it Failed). */
export const JOB_FAILED = 'the Job failed';

/**
 * What became of a batch job, from its ledger record: `running` while its reservation counts, `completed` or
 * `failed` when it was released because its Job ended so, `released` for any other release (the Job gone from its
 * cluster, its apply failed).
 */
export function batchJobOutcome(
  job: Pick<BatchJobRecord, 'state' | 'finishReason'>,
): BatchJobOutcome {
  if (job.state === 'active') return 'running';
  if (job.finishReason === JOB_COMPLETED) return 'completed';
  if (job.finishReason === JOB_FAILED) return 'failed';
  return 'released';
}
