import {
  availableDtypes,
  Dtype,
  Platform,
  ServiceRequest,
} from '../plugins/gpu-common/src';
import { Random } from './random';

/** The mix's models by weight; those the catalogue no longer has are left out. */
const MODEL_WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['phi-3-mini', 15],
  ['llama-3.2-3b', 20],
  ['llama-3.1-8b', 25],
  ['mistral-7b', 10],
  ['qwen2.5-7b', 10],
  ['mixtral-8x7b', 5],
  ['llama-3.1-70b', 5],
];

/** Relative weights of the quantised dtypes a service names, among those its model has a checkpoint in. */
const QUANTISED_WEIGHTS: Partial<Record<Dtype, number>> = {
  fp8: 3,
  int8: 2,
  int4: 2,
};

/**
 * A mix of `count` service requests: half dev, a fifth staging, the rest production; mostly 3-8B models with some
 * Mixtral and 70B; dtypes, context lengths, concurrency and replicas varied; about one in five services states its
 * expected demand. Half the services name no dtype (the model's default); the rest name one of the quantised
 * dtypes the catalogue has a vLLM checkpoint of for their model (fp8 3, int8 2, int4 2 by weight), so a
 * catalogue change never makes the mix ask for a checkpoint that does not exist. Requests whose model fits no slice
 * its environment allows are kept (the planner reports them).
 */
export function generateServices(
  random: Random,
  platform: Platform,
  count: number,
): ServiceRequest[] {
  const models = MODEL_WEIGHTS.filter(([name]) => platform.models[name]);
  if (models.length === 0) {
    throw new Error(
      `the platform's catalogue has none of the mix's models (${MODEL_WEIGHTS.map(
        ([name]) => name,
      ).join(', ')})`,
    );
  }
  return Array.from({ length: count }, (_, i) => {
    const environment = random.weighted([
      ['dev', 5],
      ['staging', 2],
      ['production', 3],
    ] as const);
    const model = random.weighted(models);
    const quantised = availableDtypes(platform.models[model], 'vllm').filter(
      d => QUANTISED_WEIGHTS[d] !== undefined,
    );
    const quantisedWeight = quantised.reduce(
      (sum, d) => sum + QUANTISED_WEIGHTS[d]!,
      0,
    );
    const dtype = random.weighted<Dtype | undefined>([
      [undefined, 5],
      ...quantised.map(
        d => [d, (5 * QUANTISED_WEIGHTS[d]!) / quantisedWeight] as const,
      ),
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
