import {
  mockServices,
  registerMswTestHooks,
} from '@backstage/backend-test-utils';
import { createMockActionContext } from '@backstage/plugin-scaffolder-node-test-utils';
import { setupServer } from 'msw/node';
import { fakeGpuBackend } from '../__testUtils__/fakeGpuBackend';
import { createServiceQuoteAction } from './serviceQuote';

describe('gpu:service:quote', () => {
  const backend = fakeGpuBackend();
  const server = setupServer(...backend.handlers);
  registerMswTestHooks(server);

  const action = createServiceQuoteAction({
    discovery: mockServices.discovery(),
    auth: mockServices.auth(),
  });

  const summariser = {
    name: 'summariser',
    team: 'ml-platform',
    model: 'llama-3.1-8b',
    runtime: 'vllm' as const,
    dtype: 'bf16' as const,
    maxModelLen: 8192,
    concurrency: 64,
    replicas: 1,
    environment: 'production',
    expectedTokensPerSecond: 600,
  };

  beforeEach(() => {
    backend.requests.length = 0;
  });

  it('asks the gpu backend on behalf of the initiator and outputs the recommendation', async () => {
    const ctx = createMockActionContext({ input: summariser });
    await action.handler(ctx);

    expect(backend.requests).toHaveLength(1);
    expect(backend.requests[0].body).toEqual(summariser);
    expect(backend.requests[0].authorization).toMatch(/^Bearer /);

    const recommended = (ctx.output as jest.Mock).mock.calls.find(
      ([k]: [string]) => k === 'recommended',
    )?.[1];
    expect(recommended).toMatchObject({ tier: 'dedicated', policy: 'allowed' });
    const options = (ctx.output as jest.Mock).mock.calls.find(
      ([k]: [string]) => k === 'options',
    )?.[1] as any[];
    expect(options.length).toBeGreaterThan(0);
    expect(options.every(o => /^\$[\d,]+\.\d\d$/.test(o.monthlyCost))).toBe(
      true,
    );
    // Production forbids the shared tiers, so no option in production is MPS or time-sliced.
    expect(
      options.some(o => o.tier === 'mps' || o.tier === 'time-sliced'),
    ).toBe(false);
    const unavailable = (ctx.output as jest.Mock).mock.calls.find(
      ([k]: [string]) => k === 'unavailable',
    )?.[1] as any[];
    expect(unavailable.every(u => typeof u.reason === 'string')).toBe(true);
  });

  it('surfaces the backend rejection of an unknown model', async () => {
    const ctx = createMockActionContext({
      input: { ...summariser, model: 'gpt-17' },
    });
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringMatching(/gpt-17/),
    });
    expect(ctx.output).not.toHaveBeenCalled();
  });
});
