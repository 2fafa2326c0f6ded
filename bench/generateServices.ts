import { Dtype, Platform, ServiceRequest } from '../plugins/gpu-common/src';
import { Random } from './random';

/**
 * A mix of `count` service requests: half dev, a fifth staging, the rest production; mostly 3-8B models with some
 * Mixtral and 70B; dtypes, context lengths, concurrency and replicas varied; about one in five services states its
 * expected demand. Requests whose model fits no slice its environment allows are kept (the planner reports them).
 */
export function generateServices(
  random: Random,
  platform: Platform,
  count: number,
): ServiceRequest[] {
  return Array.from({ length: count }, (_, i) => {
    const environment = random.weighted([
      ['dev', 5],
      ['staging', 2],
      ['production', 3],
    ] as const);
    const model = random.weighted([
      ['phi-3-mini', 15],
      ['llama-3.2-3b', 20],
      ['llama-3.1-8b', 25],
      ['mistral-7b', 10],
      ['qwen2.5-7b', 10],
      ['mixtral-8x7b', 5],
      ['llama-3.1-70b', 5],
    ] as const);
    const dtype = random.weighted<Dtype | undefined>([
      [undefined, 5],
      ['fp8', 3],
      ['int4', 2],
    ]);
    const team = random.pick(platform.teams);
    return {
      name: `svc-${i}`,
      team: team.name,
      model,
      runtime: 'vllm',
      dtype,
      maxModelLen: random.pick([2048, 4096, 8192, 16384]),
      concurrency: random.pick([1, 4, 8, 16, 32, 64]),
      replicas:
        environment === 'production' ? random.int(2, 4) : random.int(1, 2),
      environment,
      expectedTokensPerSecond:
        random.next() < 0.2 ? random.int(50, 2000) : undefined,
    };
  });
}
