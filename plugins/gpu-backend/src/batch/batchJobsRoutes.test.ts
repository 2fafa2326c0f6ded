import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import { demoPlatformConfig } from '@gpu-platform/backstage-plugin-gpu-common';
import { BatchJobRequest } from '@gpu-platform/backstage-plugin-gpu-node';
import request from 'supertest';
import { gpuPlugin } from '../plugin';
import {
  asUser,
  demoUserInfo,
  realPermissionPolicy,
} from '../__testUtils__/demoUsers';
import { databaseClosedOnShutdown } from '../testUtils/databaseClosedOnShutdown';

jest.setTimeout(60_000);

/** The OCR backlog of the search team (quota 6 GPUs on spot-l4 in the demo platform), asking for 12 at once. */
const ocr: BatchJobRequest = {
  name: 'ocr-backlog',
  team: 'search',
  environment: 'dev',
  pool: 'spot-l4',
  image: 'registry.example.com/ocr-worker:1.4.2',
  completions: 600,
  parallelism: 12,
  gpusPerPod: 1,
  backoffLimit: 6,
};

/** The plugin without a cluster (dry-run target) behind the permission backend with the app's policy. */
async function startBackend() {
  const { server } = await startTestBackend({
    features: [
      databaseClosedOnShutdown,
      gpuPlugin,
      mockServices.rootConfig.factory({
        data: { gpu: demoPlatformConfig, permission: { enabled: true } },
      }),
      demoUserInfo(),
      ...realPermissionPolicy(),
    ],
  });
  return request(server);
}

describe('POST /batch-jobs and GET /batch-jobs/:namespace/:name', () => {
  let http: Awaited<ReturnType<typeof startBackend>>;

  beforeAll(async () => {
    http = await startBackend();
  });

  const submit = (user: string, body: object) =>
    http
      .post('/api/gpu/batch-jobs')
      .set('Authorization', asUser(user))
      .send(body);

  it('renders the Job for a member of the team, with the pods its quota holds at once', async () => {
    const res = await submit('carol', { request: ocr, dryRun: true }).expect(
      200,
    );
    expect(res.body).toMatchObject({
      id: 'dry-run',
      team: 'search',
      namespace: 'search',
      pool: 'spot-l4',
      mode: 'dry-run',
      podsAtOnce: 6,
    });
    expect(res.body.manifests).toHaveLength(1);
    expect(res.body.manifests[0]).toMatchObject({
      kind: 'Job',
      metadata: {
        labels: { 'kueue.x-k8s.io/queue-name': 'gpu-search' },
        annotations: { 'kueue.x-k8s.io/job-min-parallelism': '1' },
      },
      spec: { suspend: true, completionMode: 'Indexed', parallelism: 12 },
    });
  });

  it('refuses a user of another team, as creating a service for it', async () => {
    const res = await submit('bob', { request: ocr, dryRun: true }).expect(403);
    expect(res.body.error.message).toBe(
      'You are not allowed to submit batch jobs for team search (dev, on spot-l4)',
    );
  });

  it.each([
    [{ pool: 'gpu-x' }, 'Unknown pool "gpu-x"'],
    [
      { pool: 'l4-ondemand' },
      'Pool "l4-ondemand" is on-demand with none sharing; batch jobs run on spot pools with whole GPUs: spot-l4',
    ],
    [
      { minParallelism: 7 },
      "Team search's quota on spot-l4 is 6 GPUs: it holds 6 pods of 1 GPU at once, fewer than the 7 the Job needs at least (minParallelism), so Kueue would never admit it",
    ],
    [
      { parallelism: 6, minParallelism: 6, gpusPerPod: 2 },
      'gpusPerPod (a spot-l4 node has 1) must be a whole number from 1 to 1; got 2',
    ],
    [
      { env: { NVIDIA_VISIBLE_DEVICES: 'all' } },
      'env NVIDIA_VISIBLE_DEVICES is not allowed',
    ],
    [
      { env: { LOG_LEVEL: 'info', CUDA_MPS_PIPE_DIRECTORY: '/tmp/mps' } },
      'env CUDA_MPS_PIPE_DIRECTORY is not allowed',
    ],
  ])('answers 400 for %j saying what is wrong', async (change, message) => {
    const res = await submit('carol', {
      request: { ...ocr, ...change },
      dryRun: true,
    }).expect(400);
    expect(res.body.error.message).toContain(message);
  });

  it('answers the Job for the repository in GitOps mode, records it in the audit trail and holds no quota when its cluster is not read: nothing would release it', async () => {
    const res = await submit('carol', {
      request: { ...ocr, name: 'ocr-gitops', namespace: 'batch' },
      mode: 'gitops',
    }).expect(201);
    expect(res.body).toMatchObject({
      mode: 'gitops',
      namespace: 'batch',
      podsAtOnce: 6,
    });
    expect(res.body.manifests.map((m: { kind: string }) => m.kind)).toEqual([
      'Job',
    ]);
    const audit = await http
      .get(`/api/gpu/audit?subjectId=${res.body.id}`)
      .set('Authorization', asUser('carol'))
      .expect(200);
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        actor: 'user:default/carol',
        action: 'batch-job.submit',
        subjectType: 'batch-job',
        team: 'search',
        after: expect.objectContaining({ podsAtOnce: 6, mode: 'gitops' }),
      }),
    ]);
    const quota = await http
      .get('/api/gpu/teams/search/quota')
      .set('Authorization', asUser('carol'))
      .expect(200);
    expect(quota.body.reservedGpuEquivalents['spot-l4'] ?? 0).toBe(0);
  });

  it('records no dry run in the audit trail', async () => {
    const res = await submit('carol', {
      request: { ...ocr, name: 'ocr-gitops-2', namespace: 'batch' },
      dryRun: true,
    }).expect(200);
    expect(res.body).toMatchObject({ mode: 'dry-run', podsAtOnce: 6 });
    const audit = await http
      .get(`/api/gpu/audit?action=batch-job.submit`)
      .set('Authorization', asUser('carol'))
      .expect(200);
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        actor: 'user:default/carol',
        action: 'batch-job.submit',
        subjectType: 'batch-job',
        team: 'search',
        after: expect.objectContaining({
          name: 'ocr-gitops',
          mode: 'gitops',
          parallelism: 12,
          podsAtOnce: 6,
        }),
      }),
    ]);
  });

  it('has no Job to read without a cluster', async () => {
    const res = await http
      .get('/api/gpu/batch-jobs/search/ocr-backlog')
      .set('Authorization', asUser('carol'))
      .expect(404);
    expect(res.body.error.message).toMatch(
      /applies to none and reads no GitOps cluster \(mode dry-run\)/,
    );
  });
});
