import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import fs from 'node:fs';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import {
  summariserBeyondQuota,
  summariserOnDedicatedL4,
} from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceRenderAction } from './serviceRender';

describe('gpu:service:render', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  const dir = createMockDirectory();
  const action = createServiceRenderAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  beforeEach(() => {
    backend.reset();
    dir.clear();
  });

  it('writes one file per object in apply order and a kustomization listing them', async () => {
    const service = backend.seed({
      request: summariserOnDedicatedL4,
      mode: 'gitops',
    });
    const ctx = mockContext(
      { serviceId: service.id },
      { workspacePath: dir.path },
    );
    await action.handler(ctx);

    const { files, targetDir, mode } = outputsOf(ctx);
    expect(targetDir).toBe('manifests');
    expect(mode).toBe('gitops');
    expect(files).toEqual([
      '1-localqueue-gpu-ml-platform.yaml',
      '2-persistentvolumeclaim-summariser-model-cache.yaml',
      '3-service-summariser.yaml',
      '4-deployment-summariser.yaml',
      '5-poddisruptionbudget-summariser.yaml',
      'kustomization.yaml',
    ]);
    const content = dir.content({ path: 'manifests' }) as Record<
      string,
      string
    >;
    expect(yaml.parse(content['kustomization.yaml']).resources).toEqual(
      files.slice(0, -1),
    );
    const deployment = yaml.parse(content['4-deployment-summariser.yaml']);
    expect(deployment).toMatchObject({
      kind: 'Deployment',
      metadata: {
        name: 'summariser',
        namespace: 'ml-platform',
        labels: { 'gpu.backstage.io/service-id': service.id },
      },
    });
  });

  it('in a dry run of the whole template renders the preview of the request', async () => {
    const ctx = mockContext(
      {
        serviceId: 'dry-run',
        request: summariserOnDedicatedL4,
        layout: 'single',
      },
      { workspacePath: dir.path, isDryRun: true },
    );
    await action.handler(ctx);
    expect(outputsOf(ctx)).toMatchObject({
      files: ['manifests.yaml'],
      mode: 'gitops',
    });
    const text = fs.readFileSync(
      dir.resolve('manifests/manifests.yaml'),
      'utf8',
    );
    expect(yaml.parseAllDocuments(text).map(d => d.toJS().kind)).toContain(
      'Deployment',
    );
    expect(backend.requests[0].body).toMatchObject({
      dryRun: true,
      mode: 'gitops',
    });
    expect(backend.heldGpuEquivalents('ml-platform')).toEqual({});
  });

  it.each([
    [
      { serviceId: 'x', targetDir: '../outside' },
      /targetDir: '..\/outside' is outside the workspace/,
    ],
    [
      { serviceId: 'x', targetDir: '/etc' },
      /targetDir: '\/etc' is outside the workspace/,
    ],
    [
      { serviceId: '00000000-0000-0000-0000-000000000000' },
      /serviceId: no GPU service with id/,
    ],
    [{ serviceId: 'dry-run' }, /serviceId: dry-run is the id of a dry run/],
    [{ serviceId: 'x', layout: 'helm' }, /layout: Invalid enum value/],
  ])(
    'rejects %j with an InputError naming the field',
    async (input, message) => {
      await expect(
        action.handler(mockContext(input, { workspacePath: dir.path })),
      ).rejects.toMatchObject({
        name: 'InputError',
        message,
      });
      expect(fs.readdirSync(dir.path)).toEqual([]);
    },
  );

  it('refuses a service Backstage applies, and one still waiting for approval', async () => {
    const applyBackend = fakeGpuBackend({ mode: 'apply' });
    server.use(...applyBackend.handlers);
    const applied = applyBackend.seed({ request: summariserOnDedicatedL4 });
    await expect(
      action.handler(
        mockContext({ serviceId: applied.id }, { workspacePath: dir.path }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: /applied to the cluster by Backstage .* mode: gitops/,
    });

    const pending = applyBackend.seed({
      request: { ...summariserBeyondQuota, name: 'big' },
      mode: 'gitops',
    });
    expect(pending.status).toBe('pending-approval');
    await expect(
      action.handler(
        mockContext({ serviceId: pending.id }, { workspacePath: dir.path }),
      ),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message: /rendered once it is approved/,
    });
  });
});
