import { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import { actionsRegistryServiceMock } from '@backstage/backend-test-utils/alpha';
import { z } from 'zod/v3';
import { fieldChecked, withFieldErrors } from './fieldErrors';

describe('fieldChecked', () => {
  const input = (zod: typeof z) =>
    zod.object({
      name: zod.string().describe('Service name'),
      replicas: zod.number().optional(),
      pools: zod.array(zod.object({ pool: zod.string() })).optional(),
      window: zod.string().min(2).optional(),
      runtime: zod.enum(['vllm', 'ollama']).optional(),
    });

  it('throws an InputError naming each wrong field and what it expected', () => {
    const schema = fieldChecked(input)(z);
    expect(() =>
      schema.safeParse({
        replicas: 'two',
        pools: [{ pool: 'l4-ondemand' }, { pool: 7 }],
        window: 'h',
        runtime: 'triton',
      }),
    ).toThrow(
      expect.objectContaining({
        name: 'InputError',
        message:
          'name: required, expected a string; replicas: expected a number, got string; ' +
          'pools[1].pool: expected a string, got number; ' +
          'window: String must contain at least 2 character(s); ' +
          'runtime: expected one of vllm, ollama, got "triton"',
      }),
    );
    expect(() => schema.safeParse('all')).toThrow(
      'input: expected an object, got string',
    );
  });

  it('parses a good input to the object, and the registry publishes the same JSON Schema', async () => {
    expect(
      fieldChecked(input)(z).safeParse({ name: 'a', replicas: 2, extra: 1 }),
    ).toEqual({ success: true, data: { name: 'a', replicas: 2 } });

    const register = (registry: ActionsRegistryService) =>
      registry.register({
        name: 'echo',
        title: 'Echo',
        description: 'Answers its input',
        schema: { input, output: zod => zod.object({}).passthrough() },
        action: async ({ input: given }) => ({ output: given }),
      });
    const plain = actionsRegistryServiceMock();
    const checked = actionsRegistryServiceMock();
    register(plain);
    register(withFieldErrors(checked));
    const [published] = (await checked.list()).actions;
    expect(published.schema).toEqual((await plain.list()).actions[0].schema);
    expect(published.schema.input).toMatchObject({ required: ['name'] });
    await expect(
      checked.invoke({ id: 'test:echo', input: { name: 'a', replicas: 1 } }),
    ).resolves.toEqual({ output: { name: 'a', replicas: 1 } });
    await expect(
      checked.invoke({ id: 'test:echo', input: { name: 1 } }),
    ).rejects.toThrow('name: expected a string, got number');
  });
});
