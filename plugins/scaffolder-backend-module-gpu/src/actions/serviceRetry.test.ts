import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import { setupServer } from 'msw/node';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import {
  summariserBeyondQuota,
  summariserOnDedicatedL4,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceRetryAction } from './serviceRetry';

const PR = 'https://gitea.example.com/ml-platform/gitops/pulls/7';

describe('gpu:service:retry', () => {
  const backend = fakeGpuBackend();
  registerMswTestHooks(setupServer(...backend.handlers));
  const dir = createMockDirectory();
  const action = createServiceRetryAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  beforeEach(() => {
    backend.reset();
    dir.clear();
  });

  const retries = () =>
    backend.requests.filter(
      r => r.method === 'POST' && r.path.endsWith('/retry'),
    );
  /** A GitOps service as the follower leaves it once its creation request ended unmerged. */
  const ended = (
    how: 'closed' | 'expired',
    request = summariserOnDedicatedL4,
  ) => {
    const service = backend.seed({
      request,
      entityRef: 'component:default/summariser',
      mode: 'gitops',
      provisional: true,
    });
    backend.endPullRequest(service.id, PR, how);
    return service;
  };

  it('retries a GitOps service whose request was closed, writes its manifests and describes why, cost and quota', async () => {
    const service = ended('closed');
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    const ctx = mockContext(
      { entityRef: 'summariser', targetDir: 'deploy/summariser' },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);

    expect(retries()).toEqual([
      expect.objectContaining({
        path: `/services/${service.id}/retry`,
        authorization: expect.stringMatching(/^Bearer /),
      }),
    ]);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
    const outputs = outputsOf(ctx);
    expect(outputs).toMatchObject({
      serviceId: service.id,
      name: 'summariser',
      generation: 2,
      status: 'approved',
      mode: 'gitops',
      ended: 'closed',
      lastPullRequest: PR,
      confirmBy: expect.any(String),
      tier: 'dedicated',
      pool: 'l4-ondemand',
      gpuEquivalents: 1,
      monthlyCost: service.monthlyCost,
      targetDir: 'deploy/summariser',
      files: expect.arrayContaining(['kustomization.yaml']),
    });
    expect(outputs.statusReason).toContain(
      `Retried after its pull request ${PR} was closed without merging`,
    );
    const description: string = outputs.description;
    expect(description).toContain(
      'Retry of the GPU model service **summariser** (team ml-platform',
    );
    expect(description).toContain(
      `**Why the last request ended:** its pull request ${PR} was closed without merging`,
    );
    expect(description).toMatch(/\| Cost per month \| \$[\d,]+\.\d\d \|/);
    expect(description).toContain(
      '**Quota:** the team had 0 of its 4 GPU-equivalents on l4-ondemand reserved; this retry holds 1 (3 left).',
    );
    expect(description).toMatch(
      /\*\*Budget:\*\* \$0\.00 of the team's \$60,000\.00 a month committed/,
    );
    expect(description).toContain(
      `${outputs.files.length} files under deploy/summariser/`,
    );
    for (const file of outputs.files) {
      expect(fs.existsSync(`${dir.path}/deploy/summariser/${file}`)).toBe(true);
    }
  });

  it('fails with the reason and writes nothing when the retry is refused over quota', async () => {
    const service = ended('expired', summariserBeyondQuota);
    const ctx = mockContext(
      { serviceId: service.id, targetDir: 'deploy/summariser' },
      { workspacePath: dir.path },
    );
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringMatching(
        /^The retry was refused: Retrying 'summariser' would need the platform team's approval: Team 'ml-platform' asks for 2 GPU-equivalents in pool 'spot-l4' but only 0 of 0 are free/,
      ),
    });
    expect(retries()).toHaveLength(1);
    expect(fs.existsSync(`${dir.path}/deploy/summariser`)).toBe(false);
    expect(outputsOf(ctx).description).toBeUndefined();
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
  });

  it('retries once when the task is retried (checkpoints), describing the service as it was before', async () => {
    const service = ended('expired');
    const store = new Map<string, unknown>();
    const first = createCheckpointingContext({ serviceId: service.id }, store);
    await action.handler(first);
    const again = createCheckpointingContext({ serviceId: service.id }, store);
    await action.handler(again);
    expect(retries()).toHaveLength(1);
    expect(outputsOf(again)).toMatchObject({
      ended: 'expired',
      generation: 2,
      files: [],
    });
    expect(outputsOf(again).description).toContain('was not merged in time');
  });

  it('previews a retry in a dry run: nothing retried or reserved, the manifests it would publish written', async () => {
    const service = ended('closed');
    const ctx = mockContext(
      { serviceId: service.id, targetDir: 'deploy/summariser' },
      { isDryRun: true, workspacePath: dir.path },
    );
    await action.handler(ctx);
    expect(retries()).toEqual([]);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
    const outputs = outputsOf(ctx);
    expect(outputs).toMatchObject({
      serviceId: service.id,
      status: 'deleted',
      generation: 2,
      files: expect.arrayContaining(['kustomization.yaml']),
    });
    expect(outputs.description).toContain('Preview of a retry');
    expect(outputs.description).toContain('would hold 1');
  });

  it('refuses what cannot be retried, naming it', async () => {
    const live = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
      mode: 'gitops',
    });
    await expect(
      action.handler(mockContext({ entityRef: 'summariser' })),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: `Invalid input to gpu:service:retry: entityRef: component:default/summariser's GPU service summariser (${live.id}) is approved; there is nothing to retry`,
    });
    // By id, the backend decides, and says why.
    await expect(
      action.handler(mockContext({ serviceId: live.id })),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message:
        'The retry was refused: Service summariser is approved (RenderedForGitOps); only a failed service, or a GitOps service whose pull request was closed without merging, not merged in time or never confirmed, can be retried',
    });
    expect(retries()).toHaveLength(1);
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
    backend.requests.length = 0;
    await expect(
      action.handler(mockContext({ entityRef: 'component:default/nobody' })),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining(
        'no GPU service of component:default/nobody can be retried',
      ),
    });
    expect(retries()).toEqual([]);
  });

  it.each([
    [{}, 'give exactly one of serviceId or entityRef'],
    [
      { serviceId: 'a', entityRef: 'component:default/x' },
      'give exactly one of serviceId or entityRef',
    ],
    [
      { serviceId: 'a', targetDir: '../outside' },
      "targetDir: '../outside' is outside the workspace",
    ],
    [{ serviceId: 'a', layout: 'zip' }, 'layout: Invalid enum value'],
    [
      { serviceId: '00000000-0000-4000-8000-000000000000' },
      'serviceId: no GPU service with id 00000000-0000-4000-8000-000000000000',
    ],
  ])('refuses bad input %j with an InputError', async (input, message) => {
    await expect(
      action.handler(mockContext(input, { workspacePath: dir.path })),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining(message),
    });
    expect(retries()).toEqual([]);
  });
});
