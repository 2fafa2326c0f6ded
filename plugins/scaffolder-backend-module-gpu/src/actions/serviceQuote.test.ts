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

  /** The `options` output of a quote run. */
  async function quoteOptions(
    quoteAction: typeof action,
    input: typeof summariser & {
      autoscaling?: {
        minReplicas: number;
        maxReplicas: number;
        targetQueueDepth: number;
        engine: 'keda' | 'hpa';
      };
    },
  ) {
    const ctx = createMockActionContext({ input });
    await quoteAction.handler(ctx);
    return (ctx.output as jest.Mock).mock.calls.find(
      ([k]: [string]) => k === 'options',
    )?.[1] as any[];
  }

  const dedicatedL4 = (options: any[]) =>
    options.find(o => o.tier === 'dedicated' && o.pool === 'l4-ondemand');

  it('says which replicas a fixed-size service is priced at', async () => {
    const option = dedicatedL4(
      await quoteOptions(action, { ...summariser, replicas: 2 }),
    );
    expect(option.scaling).toEqual({
      basis: 'fixed',
      replicas: 2,
      burstReplicas: 0,
    });
  });

  it('prices an autoscaled service at its maximum under the default policy, and says so', async () => {
    const fixed = dedicatedL4(
      await quoteOptions(action, { ...summariser, replicas: 4 }),
    );
    const option = dedicatedL4(
      await quoteOptions(action, {
        ...summariser,
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 4,
          targetQueueDepth: 4,
          engine: 'keda',
        },
      }),
    );
    expect(option.scaling).toEqual({
      basis: 'maximum',
      replicas: 4,
      minReplicas: 1,
      maxReplicas: 4,
      burstReplicas: 0,
    });
    // Four replicas reserved and priced: what four fixed replicas cost.
    expect(option.monthlyCost).toBe(fixed.monthlyCost);
  });

  it('prices scale to zero at the replica that wakes it plus burst under minimum-plus-burst, with the burst cost and room', async () => {
    const burstBackend = fakeGpuBackend({
      autoscaledReplicas: 'minimum-plus-burst',
    });
    server.use(...burstBackend.handlers);
    const one = dedicatedL4(
      await quoteOptions(action, { ...summariser, replicas: 1 }),
    );
    const two = dedicatedL4(
      await quoteOptions(action, { ...summariser, replicas: 2 }),
    );
    const option = dedicatedL4(
      await quoteOptions(action, {
        ...summariser,
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 3,
          targetQueueDepth: 2,
          engine: 'keda',
        },
      }),
    );
    expect(option.scaling).toEqual({
      basis: 'minimum-plus-burst',
      replicas: 1,
      minReplicas: 0,
      maxReplicas: 3,
      burstReplicas: 2,
      // Two more replicas for a month: what two fixed replicas cost.
      burstMonthlyCost: two.monthlyCost,
      // The team holds nothing yet: its quota has room for both.
      burstReplicasWithinQuota: 2,
    });
    expect(option.monthlyCost).toBe(one.monthlyCost);
  });

  it('quotes a latency budget with the request, as gpu:service:create will send it', async () => {
    const ctx = createMockActionContext({
      input: { ...summariser, latencyBudget: { p95Seconds: 2 } },
    });
    await action.handler(ctx);
    expect(backend.requests[0].body).toEqual({
      ...summariser,
      latencyBudget: { p95Seconds: 2 },
    });
    expect(
      (ctx.output as jest.Mock).mock.calls.find(
        ([k]: [string]) => k === 'recommended',
      )?.[1],
    ).toMatchObject({ tier: 'dedicated', policy: 'allowed' });
  });

  it.each([
    [
      { p95Seconds: 0 },
      'Invalid service request: latencyBudget.p95Seconds: Too small: expected number to be >=0.1',
    ],
    [
      { p95Seconds: -2 },
      'Invalid service request: latencyBudget.p95Seconds: Too small: expected number to be >=0.1',
    ],
    [
      { p95Seconds: '2' },
      'Invalid service request: latencyBudget.p95Seconds: Invalid input: expected number, received string',
    ],
  ])(
    "refuses latencyBudget %j with the platform's validation, as an InputError",
    async (latencyBudget, message) => {
      const ctx = createMockActionContext({
        input: { ...summariser, latencyBudget } as any,
      });
      await expect(action.handler(ctx)).rejects.toMatchObject({
        name: 'InputError',
        message: expect.stringContaining(message),
      });
      expect(ctx.output).not.toHaveBeenCalled();
    },
  );

  it('refuses a latency budget on Ollama, which exports no latency metrics to measure it', async () => {
    const ctx = createMockActionContext({
      input: {
        ...summariser,
        runtime: 'ollama' as const,
        dtype: undefined,
        latencyBudget: { p95Seconds: 2 },
      } as any,
    });
    await expect(action.handler(ctx)).rejects.toMatchObject({
      name: 'InputError',
      message: expect.stringContaining(
        'latencyBudget needs the vllm runtime: ollama exports no request latency metrics to measure or alert on',
      ),
    });
    expect(ctx.output).not.toHaveBeenCalled();
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
