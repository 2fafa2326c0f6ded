import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { setupServer } from 'msw/node';
import yaml from 'yaml';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { createServiceQuoteAction } from './serviceQuote';
import { examples } from './serviceQuote.examples';

describe('gpu:service:quote examples', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);

  const action = createServiceQuoteAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  it.each(examples.map(e => [e.description, e] as const))(
    '%s',
    async (_, example) => {
      const input = yaml.parse(example.example).steps[0].input;
      const ctx = createMockActionContext({ input });
      await action.handler(ctx);
      const recommended = (ctx.output as jest.Mock).mock.calls.find(
        ([k]: [string]) => k === 'recommended',
      )?.[1];
      expect(recommended).toBeDefined();
    },
  );
});
