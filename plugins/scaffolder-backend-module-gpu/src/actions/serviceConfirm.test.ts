import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeGpuBackend, GPU_BASE_URL } from '../__testUtils__/fakeGpuBackend';
import { createServiceConfirmAction } from './serviceConfirm';
import { examples } from './serviceConfirm.examples';

describe('gpu:service:confirm', () => {
  const backend = fakeGpuBackend();
  registerMswTestHooks(setupServer(...backend.handlers));
  const action = createServiceConfirmAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });
  const confirmCalls = () =>
    backend.requests.filter(r => r.path.endsWith('/confirm'));

  beforeEach(() => backend.reset());

  it.each(examples.map(e => [e.description, e] as const))(
    'example: %s',
    async (_, example) => {
      const input = yaml.parse(example.example).steps[0].input;
      const seeded = backend.seed(
        { request: summariserOnDedicatedL4, provisional: true },
        input.serviceId,
      );
      expect(seeded.confirmBy).toBeDefined();
      const ctx = mockContext(input);
      await action.handler(ctx);
      expect(outputsOf(ctx)).toEqual({
        serviceId: input.serviceId,
        status: 'approved',
      });
      const service = await (
        await fetch(`${GPU_BASE_URL}/services/${input.serviceId}`)
      ).json();
      expect(service.confirmBy).toBeUndefined();
    },
  );

  it('sends the pull request of a GitOps service, which its reservation then follows; refuses one that is no address', async () => {
    const seeded = backend.seed({
      request: summariserOnDedicatedL4,
      provisional: true,
    });
    const pullRequestUrl = 'https://gitea.example.com/ops/gitops/pulls/7';
    await action.handler(mockContext({ serviceId: seeded.id, pullRequestUrl }));
    expect(confirmCalls().map(c => c.body)).toEqual([{ pullRequestUrl }]);
    await expect(
      action.handler(
        mockContext({ serviceId: seeded.id, pullRequestUrl: 'pull 7' }),
      ),
    ).rejects.toMatchObject({ name: 'InputError' });
    expect(confirmCalls()).toHaveLength(1);
  });

  it('confirms without a pull request when the template rendered none (an empty address)', async () => {
    const seeded = backend.seed({
      request: summariserOnDedicatedL4,
      provisional: true,
    });
    await action.handler(
      mockContext({ serviceId: seeded.id, pullRequestUrl: '' }),
    );
    expect(confirmCalls().map(c => c.body)).toEqual([undefined]);
  });

  it('confirms nothing in a dry run, nor for the id a dry-run create outputs', async () => {
    for (const ctx of [
      mockContext({ serviceId: 'dry-run' }),
      mockContext(
        { serviceId: '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11' },
        { isDryRun: true },
      ),
    ]) {
      await action.handler(ctx);
      expect(outputsOf(ctx).status).toBe('approved');
    }
    expect(confirmCalls()).toHaveLength(0);
  });

  it('fails with an InputError for an unknown service or an empty id', async () => {
    await expect(
      action.handler(
        mockContext({ serviceId: '00000000-0000-4000-8000-000000000000' }),
      ),
    ).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining('no GPU service with id'),
    });
    await expect(
      action.handler(mockContext({ serviceId: '' })),
    ).rejects.toMatchObject({ name: 'InputError' });
  });

  it('fails, saying to run the template again, when the service was deleted before it was confirmed', async () => {
    const seeded = backend.seed({
      request: summariserOnDedicatedL4,
      provisional: true,
    });
    await fetch(`${GPU_BASE_URL}/services/${seeded.id}`, {
      method: 'DELETE',
    });
    await expect(
      action.handler(mockContext({ serviceId: seeded.id })),
    ).rejects.toMatchObject({
      name: 'ConflictError',
      message: expect.stringMatching(
        /was not kept; run the template again.*can no longer be confirmed/,
      ),
    });
  });
});
