import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { mockContext, outputsOf } from '../__testUtils__/actionContext';
import { fakeCatalog } from '../__testUtils__/fakeCatalog';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { createServiceCreateAction } from './serviceCreate';
import { examples } from './serviceCreate.examples';

describe('gpu:service:create examples', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);
  beforeEach(() => backend.reset());

  const action = createServiceCreateAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
    catalog: fakeCatalog().catalog,
  });

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      const input = yaml.parse(example.example).steps[0].input;
      const ctx = mockContext(input);
      await action.handler(ctx);
      const out = outputsOf(ctx);
      expect(out.serviceId).toMatch(/^[0-9a-f-]{36}$/);
      expect(out.annotations['gpu.backstage.io/service-id']).toBe(
        out.serviceId,
      );
      expect(out.status).toBe(
        input.whenPendingApproval === 'continue'
          ? 'pending-approval'
          : 'approved',
      );
    },
  );
});
