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

  // Every step of every example (an example may show more than one use of the action).
  const steps = examples.flatMap(e =>
    yaml
      .parse(e.example)
      .steps.map(
        (step: { id: string; input: Record<string, unknown> }) =>
          [`${e.description} (${step.id})`, step.input] as const,
      ),
  );

  it.each(steps)('%s', async (_, input) => {
    const ctx = createMockActionContext({ input });
    await action.handler(ctx);
    // The request quoted is the example's, a latency budget included.
    expect(backend.requests.at(-1)?.body).toEqual(input);
    const recommended = (ctx.output as jest.Mock).mock.calls.find(
      ([k]: [string]) => k === 'recommended',
    )?.[1];
    expect(recommended).toBeDefined();
    // Its monthly cost says which replicas it is for: the maximum of an autoscaled request (the default policy).
    expect(recommended.scaling.basis).toBe(
      input.autoscaling ? 'maximum' : 'fixed',
    );
  });
});
