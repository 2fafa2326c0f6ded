import { BackstageCredentials } from '@backstage/backend-plugin-api';
import {
  gpuServiceCreatePermission,
  gpuServiceReadPermission,
  Platform,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { resolveBatchJob } from '@gpu-platform/backstage-plugin-gpu-node';
import { actorOf } from '../authorization/actorOf';
import { GpuAccess } from '../authorization/GpuAccess';
import { BatchJobs } from './BatchJobs';
import {
  BatchJobStatus,
  BatchJobSubmission,
  SubmitBatchJobBody,
} from './types';

/** Batch jobs hold whole GPUs of their pool: the permission rules see them as the dedicated tier. */
const BATCH_TIER = 'dedicated';

/**
 * Batch jobs as a caller may submit and read them: submitting needs `gpu.service.create` on the team, environment
 * and pool, as requesting a service there does; reading needs `gpu.service.read` on the Job's team, environment and
 * pool (from its labels).
 */
export class AuthorizedBatchJobs {
  constructor(
    private readonly options: {
      access: GpuAccess;
      platform: Platform;
      batchJobs: BatchJobs;
    },
  ) {}

  async submit(
    credentials: BackstageCredentials,
    body: SubmitBatchJobBody,
  ): Promise<BatchJobSubmission> {
    const { team, environment, pool } = resolveBatchJob(
      this.options.platform,
      body.request,
    );
    await this.options.access.requireOnService(
      credentials,
      gpuServiceCreatePermission,
      {
        team: team.name,
        environment: environment.name,
        pool: pool.name,
        tier: BATCH_TIER,
      },
      `submit batch jobs for team ${team.name} (${environment.name}, on ${pool.name})`,
    );
    return this.options.batchJobs.submit(body, actorOf(credentials));
  }

  async status(
    credentials: BackstageCredentials,
    namespace: string,
    name: string,
  ): Promise<BatchJobStatus> {
    const status = await this.options.batchJobs.status(namespace, name);
    await this.options.access.requireOnService(
      credentials,
      gpuServiceReadPermission,
      {
        team: status.team,
        environment: status.environment,
        pool: status.pool,
        tier: BATCH_TIER,
      },
      `read batch job ${namespace}/${name} of team ${status.team}`,
    );
    return status;
  }
}
