import { AuditorService, HttpAuthService } from '@backstage/backend-plugin-api';
import { BatchJobRequest } from '@gpu-platform/backstage-plugin-gpu-node';
import { AuthorizedBatchJobs } from '../batch/AuthorizedBatchJobs';
import { audited } from './audited';
import { callerOf, GpuRouter, send } from './types';

/** `/batch-jobs`: submit a GPU batch job to the team's Kueue queue on a spot pool, and read it back. */
export function registerBatchJobsRoutes(
  router: GpuRouter,
  options: {
    httpAuth: HttpAuthService;
    auditor: AuditorService;
    batchJobs: AuthorizedBatchJobs;
  },
): void {
  const { httpAuth, auditor, batchJobs } = options;
  const credentialsOf = callerOf(httpAuth);

  router.post('/batch-jobs', async (req, res) => {
    const credentials = await credentialsOf(req);
    // The spec checked the body's shape; the platform's rules and the quota are checked by the batch jobs.
    const body = { ...req.body, request: req.body.request as BatchJobRequest };
    if (body.dryRun) {
      send(res, await batchJobs.submit(credentials, body));
      return;
    }
    const submission = await audited(
      auditor,
      req,
      'batch-job-mutate',
      { actionType: 'submit' },
      () => batchJobs.submit(credentials, body),
    );
    send(res, submission, submission.mode === 'dry-run' ? 200 : 201);
  });

  router.get('/batch-jobs/:namespace/:name', async (req, res) => {
    const credentials = await credentialsOf(req);
    const { namespace, name } = req.params;
    send(res, await batchJobs.status(credentials, namespace, name));
  });
}
