import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import {
  createCheckpointingContext,
  mockContext,
  outputsOf,
} from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceChangeAction } from './serviceChange';

describe('gpu:service:change', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  const dir = createMockDirectory();
  const action = createServiceChangeAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  beforeEach(() => {
    backend.reset();
    dir.clear();
  });

  const patches = () => backend.requests.filter(r => r.method === 'PATCH');
  const seedGitOps = () =>
    backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
      mode: 'gitops',
    });

  it('changes the replicas of a GitOps service, writes its new manifests and describes cost and quota before and after', async () => {
    const service = seedGitOps();
    const ctx = mockContext(
      {
        entityRef: 'summariser',
        replicas: 2,
        targetDir: 'deploy/summariser',
      },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);

    expect(patches()).toEqual([
      expect.objectContaining({
        path: `/services/${service.id}`,
        body: { replicas: 2 },
        authorization: expect.stringMatching(/^Bearer /),
      }),
    ]);
    const outputs = outputsOf(ctx);
    expect(outputs).toMatchObject({
      serviceId: service.id,
      name: 'summariser',
      status: 'approved',
      mode: 'gitops',
      before: {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        replicas: 1,
        gpuEquivalents: 1,
        monthlyCost: service.monthlyCost,
      },
      after: {
        tier: 'dedicated',
        pool: 'l4-ondemand',
        replicas: 2,
        gpuEquivalents: 2,
      },
      approvals: [],
      targetDir: 'deploy/summariser',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 2,
    });
    expect(outputs.files).toContain('kustomization.yaml');
    const deploymentFile = outputs.files.find((f: string) =>
      f.endsWith('-deployment-summariser.yaml'),
    );
    const deployment = yaml.parse(
      fs.readFileSync(
        dir.resolve(`deploy/summariser/${deploymentFile}`),
        'utf8',
      ),
    );
    expect(deployment.spec.replicas).toBe(2);

    const description: string = outputs.description;
    expect(description).toContain('| Replicas | 1 | **2** |');
    // Each monthly cost is rounded to the cent from the quote: the difference is theirs.
    expect(description).toContain(
      '| Cost per month | $587.50 | **$1,175.01** (+$587.51) |',
    );
    expect(description).toContain(
      '**Quota:** 1 on l4-ondemand → 2 on l4-ondemand (+1).',
    );
    expect(description).toContain('**Approvals:** none needed');
    expect(description).toContain(
      `${outputs.files.length} files under deploy/summariser/`,
    );
  });

  it('with provisional, the change is pending until its request is merged; removedFilesDir holds the files it removes', async () => {
    const service = seedGitOps();
    const ctx = mockContext(
      {
        serviceId: service.id,
        replicas: 2,
        targetDir: 'deploy/summariser',
        removedFilesDir: 'removed/deploy/summariser',
        provisional: true,
      },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);
    expect(patches().map(p => p.body)).toEqual([
      { replicas: 2, provisional: true },
    ]);
    const { removedFiles } = outputsOf(ctx);
    // One replica's ReadWriteOnce model cache gives way to the ReadWriteMany claim several replicas share.
    expect(removedFiles).toEqual([
      expect.stringMatching(
        /-persistentvolumeclaim-summariser-model-cache\.yaml$/,
      ),
    ]);
    expect(
      fs.readdirSync(dir.resolve('removed/deploy/summariser')).sort(),
    ).toEqual(removedFiles);
    expect(
      fs.readFileSync(
        dir.resolve(`removed/deploy/summariser/${removedFiles[0]}`),
        'utf8',
      ),
    ).toBe('');

    // Pending: another change (or its preview) is refused until the request is merged or closed.
    await expect(
      action.handler(
        mockContext(
          { serviceId: service.id, replicas: 3 },
          { taskId: 'task-2', workspacePath: dir.path },
        ),
      ),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringContaining(
        "Service 'summariser' has a change (generation 2) waiting for the template run",
      ),
    });
  });

  it('refuses provisional for a service that is not in GitOps mode', async () => {
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      entityRef: 'component:default/summariser',
    });
    await expect(
      action.handler(
        mockContext({ serviceId: service.id, replicas: 2, provisional: true }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining('only a change of a GitOps service'),
    });
  });

  it('a retried task changes once and describes the change from the spec it changed', async () => {
    const service = seedGitOps();
    const store = new Map<string, unknown>();
    const input = { serviceId: service.id, replicas: 2 };
    const first = createCheckpointingContext(input, store);
    await action.handler(first);
    const again = createCheckpointingContext(input, store);
    await action.handler(again);
    expect(patches()).toHaveLength(1);
    expect(outputsOf(again).before.replicas).toBe(1);
    expect(outputsOf(again).description).toBe(outputsOf(first).description);
  });

  it('a change beyond the quota waits for approval: nothing written, the approvals named; fail makes the step fail', async () => {
    const service = seedGitOps();
    backend.seed({
      request: { ...summariserOnDedicatedL4, name: 'other' },
      entityRef: 'component:default/other',
    });
    const ctx = mockContext(
      { serviceId: service.id, replicas: 4, targetDir: 'deploy/summariser' },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);
    const outputs = outputsOf(ctx);
    expect(outputs).toMatchObject({
      status: 'pending-approval',
      after: { replicas: 4, gpuEquivalents: 4 },
      files: [],
    });
    expect(outputs.approvals).toEqual(
      expect.arrayContaining([expect.stringContaining('only 3 of 4 are free')]),
    );
    expect(outputs.description).toContain(
      '**Approvals:** the platform team must approve this change',
    );
    expect(fs.existsSync(dir.resolve('deploy/summariser'))).toBe(false);
    // The service keeps its spec and reservation until the change is decided.
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 2,
    });

    await expect(
      action.handler(
        mockContext(
          { serviceId: service.id, replicas: 4, whenPendingApproval: 'fail' },
          { taskId: 'task-2' },
        ),
      ),
    ).rejects.toThrow(/needs approval by the platform team/);
  });

  it('a dry run changes nothing: the backend weighs the change (PATCH with dryRun) and renders it as a preview', async () => {
    const service = seedGitOps();
    const ctx = mockContext(
      { serviceId: service.id, replicas: 2, targetDir: 'deploy/summariser' },
      { isDryRun: true, workspacePath: dir.path },
    );
    await action.handler(ctx);
    expect(patches().map(p => p.body)).toEqual([{ replicas: 2, dryRun: true }]);
    const outputs = outputsOf(ctx);
    expect(outputs).toMatchObject({
      status: 'approved',
      before: { replicas: 1, gpuEquivalents: 1 },
      after: { replicas: 2, gpuEquivalents: 2 },
    });
    expect(outputs.description).toMatch(/^Preview of a change/);
    expect(outputs.files).toContain('kustomization.yaml');
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({
      'l4-ondemand': 1,
    });
  });

  it.each([
    [{ replicas: 2 }, /exactly one of serviceId or entityRef/],
    [
      { serviceId: 'a', entityRef: 'component:default/x', replicas: 2 },
      /exactly one of serviceId or entityRef/,
    ],
    [{ serviceId: 'a' }, /at least one of tier, pool, replicas or model/],
    [{ serviceId: 'a', replicas: 0 }, /replicas/],
    [{ serviceId: 'a', tier: 'gold' }, /tier/],
    [
      { serviceId: 'a', replicas: 2, targetDir: '../elsewhere' },
      /outside the workspace/,
    ],
  ])('refuses %j', async (input, message) => {
    await expect(
      action.handler(mockContext(input, { workspacePath: dir.path })),
    ).rejects.toMatchObject({ name: 'InputError', message });
    expect(backend.requests).toEqual([]);
  });

  it('refuses an unknown service, an entity without one, and a change that changes nothing', async () => {
    await expect(
      action.handler(mockContext({ serviceId: 'nope', replicas: 2 })),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/no GPU service with id nope/),
    });
    await expect(
      action.handler(
        mockContext({ entityRef: 'component:default/nothing', replicas: 2 }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/no live GPU service belongs/),
    });
    const service = seedGitOps();
    await expect(
      action.handler(
        mockContext({ serviceId: service.id, replicas: 1, tier: 'dedicated' }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/nothing to change/),
    });
    expect(patches()).toEqual([]);
  });
});

describe('gpu:service:change on a service Backstage applies', () => {
  const backend = fakeGpuBackend({ mode: 'apply' });
  registerMswTestHooks(setupServer(...backend.handlers));

  it('changes it but refuses to write its manifests for a repository', async () => {
    const action = createServiceChangeAction({
      discovery: mockServices.discovery(),
      auth: mockServices.auth(),
    });
    const service = backend.seed({ request: summariserOnDedicatedL4 });
    await expect(
      action.handler(
        mockContext({
          serviceId: service.id,
          replicas: 2,
          targetDir: 'deploy/summariser',
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/mode apply/),
    });
    const ctx = mockContext({ serviceId: service.id, replicas: 2 });
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      mode: 'apply',
      after: { replicas: 2 },
      files: [],
    });
  });
});
