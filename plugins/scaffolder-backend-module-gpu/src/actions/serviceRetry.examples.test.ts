import {
  createMockDirectory,
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { summariserOnDedicatedL4 } from '@gpu-platform/backstage-plugin-gpu-common/testUtils';
import { createServiceRetryAction } from './serviceRetry';
import { examples } from './serviceRetry.examples';

describe('gpu:service:retry examples', () => {
  const backend = fakeGpuBackend();
  registerMswTestHooks(setupServer(...backend.handlers));
  const dir = createMockDirectory();

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      backend.reset();
      dir.clear();
      const input = yaml.parse(example.example).steps[0].input;
      const service = backend.seed(
        {
          request: summariserOnDedicatedL4,
          entityRef: 'component:default/summariser',
          mode: 'gitops',
          provisional: true,
        },
        input.serviceId,
      );
      backend.endPullRequest(
        service.id,
        'https://gitea.example.com/ml-platform/gitops/pulls/1',
        input.serviceId ? 'expired' : 'closed',
      );
      const action = createServiceRetryAction({
        discovery: mockServices.discovery(),
        auth: mockServices.auth(),
      });
      const ctx = mockContext(input, { workspacePath: dir.path });
      await action.handler(ctx);
      const outputs = outputsOf(ctx);
      expect(outputs).toMatchObject({
        serviceId: service.id,
        status: 'approved',
        generation: 2,
        ended: input.serviceId ? 'expired' : 'closed',
      });
      expect(outputs.description).toContain('| Cost per month |');
      expect(outputs.files.length > 0).toBe(Boolean(input.targetDir));
    },
  );
});
