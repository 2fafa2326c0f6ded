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
import { createServiceChangeAction } from './serviceChange';
import { examples } from './serviceChange.examples';

describe('gpu:service:change examples', () => {
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
          ...(input.targetDir ? { mode: 'gitops' as const } : {}),
        },
        input.serviceId,
      );
      const action = createServiceChangeAction({
        discovery: mockServices.discovery(),
        auth: mockServices.auth(),
      });
      const ctx = mockContext(input, { workspacePath: dir.path });
      await action.handler(ctx);
      const outputs = outputsOf(ctx);
      expect(outputs).toMatchObject({
        serviceId: service.id,
        status: 'approved',
        after: {
          ...(input.replicas ? { replicas: input.replicas } : {}),
          ...(input.tier ? { tier: input.tier, pool: input.pool } : {}),
        },
      });
      expect(outputs.description).toContain('| Cost per month |');
      expect(outputs.files.length > 0).toBe(Boolean(input.targetDir));
    },
  );
});
