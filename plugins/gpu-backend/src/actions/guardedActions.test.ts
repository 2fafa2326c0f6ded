import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { ConfigReader } from '@backstage/config';
import { readActionRateLimit, withGuards } from './guardedActions';

describe('readActionRateLimit', () => {
  const read = (backend: object | undefined) =>
    readActionRateLimit(new ConfigReader(backend ? { backend } : {}));

  it("takes the REST API's gpu rate limit, counted per caller", () => {
    expect(
      read({
        rateLimit: {
          global: false,
          plugin: {
            gpu: { window: { minutes: 1 }, incomingRequestLimit: 300 },
          },
        },
      }),
    ).toEqual({ windowMs: 60_000, limit: 300 });
    expect(
      read({ rateLimit: { plugin: { gpu: { window: { seconds: 10 } } } } }),
    ).toEqual({ windowMs: 10_000, limit: 5 });
  });

  it('is off where the REST API has none', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read({ rateLimit: { global: false } })).toBeUndefined();
  });
});

describe('withGuards', () => {
  function setup(limit = 3) {
    let now = 1_000_000;
    const registry = actionsRegistryServiceMock();
    const logger = mockServices.logger.mock();
    const guarded = withGuards(registry, {
      logger,
      rateLimit: { windowMs: 60_000, limit },
      now: () => now,
    });
    guarded.register({
      name: 'echo',
      title: 'Echo',
      description: 'Answers its input, or fails as asked',
      schema: {
        input: z => z.object({ fail: z.string().optional() }),
        output: z => z.object({ reason: z.string() }),
      },
      action: async ({ input }) => {
        if (input.fail) throw new Error(input.fail);
        return {
          output: { reason: 'cluster at https://10.0.0.1:6443 is fine' },
        };
      },
    });
    const call = (user: string, input: object = {}) =>
      registry.invoke({
        id: 'test:echo',
        input: input as any,
        credentials: mockCredentials.user(`user:default/${user}`),
      });
    return {
      call,
      registry,
      logger,
      advance: (ms: number) => {
        now += ms;
      },
    };
  }

  it('refuses calls of a caller past the limit until the window ends, others not counted with them', async () => {
    const { call, advance, registry } = setup(3);
    for (let i = 0; i < 3; i++) await call('bob');
    await expect(call('bob')).rejects.toMatchObject({
      name: 'ServiceUnavailableError',
      statusCode: 429,
      message:
        'Too many gpu tool calls: at most 3 every 60 s per caller; try again in 60 s',
    });
    await expect(call('carol')).resolves.toBeDefined();
    advance(30_000);
    await expect(call('bob')).rejects.toMatchObject({
      message: expect.stringMatching(/try again in 30 s$/),
    });
    advance(30_000);
    await expect(call('bob')).resolves.toBeDefined();
    // Another backend acting as itself is not limited.
    for (let i = 0; i < 5; i++) {
      await registry.invoke({
        id: 'test:echo',
        input: {},
        credentials: mockCredentials.service('plugin:scaffolder'),
      });
    }
  });

  it('answers outputs and errors without internal addresses, logging what it withholds', async () => {
    const { call, logger } = setup(100);
    expect((await call('bob')).output).toEqual({
      reason: 'cluster at (address withheld) is fine',
    });
    const failure = await call('bob', {
      fail: 'connect ECONNREFUSED 127.0.0.1:17802',
    }).catch(e => e);
    expect(failure.message).toBe('connect ECONNREFUSED (address withheld)');
    expect(failure.cause).toBeUndefined();
    expect(logger.error).toHaveBeenCalledWith(
      'A gpu request failed',
      expect.objectContaining({
        message: 'connect ECONNREFUSED 127.0.0.1:17802',
      }),
    );
  });
});
