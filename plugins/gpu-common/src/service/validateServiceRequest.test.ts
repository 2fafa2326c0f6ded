import { GpuDomainError, GpuDomainErrorCode } from '../errors';
import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { serviceRequestSchema } from './serviceRequestSchema';
import { validateServiceRequest } from './validateServiceRequest';

const platform = parsePlatform(demoPlatformConfig);

const valid = {
  name: 'summariser',
  team: 'search',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 1,
  environment: 'production',
};

function rejection(raw: unknown, onPlatform = platform): GpuDomainError {
  try {
    validateServiceRequest(onPlatform, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(GpuDomainError);
    expect((error as Error).name).toBe('InputError');
    return error as GpuDomainError;
  }
  throw new Error('expected validateServiceRequest to throw');
}

describe('validateServiceRequest', () => {
  it('accepts a valid request and fills namespace and dtype', () => {
    expect(validateServiceRequest(platform, valid)).toEqual({
      ...valid,
      namespace: 'search',
      dtype: 'bf16',
    });
    const full = {
      ...valid,
      namespace: 'batch',
      dtype: 'fp8',
      tier: 'dedicated',
      pool: 'l4-ondemand',
      expectedTokensPerSecond: 600,
      replicas: 2,
      autoscaling: {
        minReplicas: 1,
        maxReplicas: 4,
        targetQueueDepth: 5,
        engine: 'hpa',
      },
    };
    expect(validateServiceRequest(platform, full)).toEqual(full);
  });

  it('accepts scale-to-zero with KEDA', () => {
    expect(
      validateServiceRequest(platform, {
        ...valid,
        environment: 'dev',
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 2,
          targetQueueDepth: 5,
          engine: 'keda',
        },
      }).autoscaling?.minReplicas,
    ).toBe(0);
  });

  it.each<
    [string, Record<string, unknown>, GpuDomainErrorCode, RegExp, string[]?]
  >([
    [
      'an uppercase name',
      { name: 'Summariser' },
      'INVALID_NAME',
      /name: must be a DNS-1123 label/,
    ],
    [
      'a name over 40 characters',
      { name: 'a'.repeat(41) },
      'INVALID_NAME',
      /name: must be at most 40 characters/,
    ],
    [
      'a name ending in a dash',
      { name: 'summariser-' },
      'INVALID_NAME',
      /DNS-1123/,
    ],
    [
      'an unknown team',
      { team: 'growth' },
      'UNKNOWN_TEAM',
      /Unknown team "growth"; allowed: ml-platform or search/,
      ['ml-platform', 'search'],
    ],
    [
      'an unknown model',
      { model: 'gpt-5' },
      'UNKNOWN_MODEL',
      /Unknown model "gpt-5"; allowed: llama-3.1-8b, /,
    ],
    [
      'an unknown environment',
      { environment: 'qa' },
      'UNKNOWN_ENVIRONMENT',
      /allowed: dev, staging or production/,
      ['dev', 'staging', 'production'],
    ],
    [
      'a namespace of another team',
      { namespace: 'ml-serving' },
      'INVALID_NAME',
      /may not deploy to namespace "ml-serving"; allowed: search or batch/,
      ['search', 'batch'],
    ],
    [
      'an unknown pool',
      { pool: 'a10g' },
      'UNKNOWN_POOL',
      /Unknown pool "a10g"; allowed: l4-ondemand, /,
    ],
    [
      'an unknown tier',
      { tier: 'shared' },
      'UNKNOWN_TIER',
      /tier: Invalid option: expected one of "dedicated"\|"mig"\|"mps"\|"time-sliced"/,
      ['dedicated', 'mig', 'mps', 'time-sliced'],
    ],
    [
      'a tier production forbids',
      { tier: 'time-sliced' },
      'TIER_FORBIDDEN',
      /"production" does not allow the time-sliced tier; allowed: dedicated or mig/,
      ['dedicated', 'mig'],
    ],
    [
      'a pool whose tier production forbids',
      { pool: 'l4-mps' },
      'TIER_FORBIDDEN',
      /does not allow the mps tier/,
    ],
    [
      'a pool that does not offer the tier',
      { tier: 'mig', pool: 'h100' },
      'UNKNOWN_POOL',
      /Pool "h100" offers the dedicated tier, not mig; pools with mig: a100-mig/,
      ['a100-mig'],
    ],
    [
      'an unknown runtime',
      { runtime: 'tgi' },
      'OUT_OF_RANGE',
      /runtime: Invalid option: expected one of "vllm"\|"ollama"/,
      ['vllm', 'ollama'],
    ],
    [
      'an unknown dtype',
      { dtype: 'fp4' },
      'OUT_OF_RANGE',
      /dtype: Invalid option/,
    ],
    [
      'max-model-len over the model context',
      { model: 'mistral-7b', maxModelLen: 65536 },
      'OUT_OF_RANGE',
      /maxModelLen 65536 exceeds the context of mistral-7b; allowed: 1 to 32768/,
    ],
    [
      'a zero max-model-len',
      { maxModelLen: 0 },
      'OUT_OF_RANGE',
      /maxModelLen: Too small: expected number to be >=1/,
    ],
    [
      'a fractional max-model-len',
      { maxModelLen: 1024.5 },
      'OUT_OF_RANGE',
      /maxModelLen: .*int/,
    ],
    [
      'zero concurrency',
      { concurrency: 0 },
      'OUT_OF_RANGE',
      /concurrency: Too small/,
    ],
    [
      'absurd concurrency',
      { concurrency: 1_000_000 },
      'OUT_OF_RANGE',
      /concurrency: Too big: expected number to be <=1024/,
    ],
    [
      'negative replicas',
      { replicas: -1 },
      'OUT_OF_RANGE',
      /replicas: Too small/,
    ],
    [
      'too many replicas',
      { replicas: 65 },
      'OUT_OF_RANGE',
      /replicas: Too big: expected number to be <=64/,
    ],
    [
      'an absurd throughput',
      { expectedTokensPerSecond: 1e12 },
      'OUT_OF_RANGE',
      /expectedTokensPerSecond: Too big/,
    ],
    [
      'a string number',
      { concurrency: '8' },
      'OUT_OF_RANGE',
      /concurrency: Invalid input: expected number, received string/,
    ],
    [
      'an unknown key',
      { maxModelLength: 8192 },
      'OUT_OF_RANGE',
      /maxModelLength: Unrecognized key/,
    ],
    [
      'autoscaling min above max',
      {
        autoscaling: {
          minReplicas: 3,
          maxReplicas: 2,
          targetQueueDepth: 5,
          engine: 'keda',
        },
      },
      'OUT_OF_RANGE',
      /minReplicas 3 is above autoscaling.maxReplicas 2/,
    ],
    [
      'HPA scaling to zero',
      {
        autoscaling: {
          minReplicas: 0,
          maxReplicas: 2,
          targetQueueDepth: 5,
          engine: 'hpa',
        },
      },
      'OUT_OF_RANGE',
      /needs engine keda/,
    ],
    [
      'replicas outside the autoscaling range',
      {
        replicas: 5,
        autoscaling: {
          minReplicas: 1,
          maxReplicas: 2,
          targetQueueDepth: 5,
          engine: 'keda',
        },
      },
      'OUT_OF_RANGE',
      /replicas 5 is outside the autoscaling range; allowed: 1 to 2/,
    ],
  ])('rejects %s', (_, change, code, message, ...rest) => {
    const [allowed] = rest;
    const error = rejection({ ...valid, ...change });
    expect(error).toMatchObject(allowed ? { code, allowed } : { code });
    expect(error.message).toMatch(message);
  });

  it('rejects a missing field by name', () => {
    const { team, ...withoutTeam } = valid;
    const error = rejection(withoutTeam);
    expect(error.code).toBe('UNKNOWN_TEAM');
    expect(error.message).toMatch(
      /team: Invalid input: expected string, received undefined/,
    );
  });

  it('rejects Ollama for a model without an Ollama tag', () => {
    const custom = parsePlatform({
      ...demoPlatformConfig,
      models: {
        'private-7b': {
          huggingFaceId: 'acme/private-7b',
          parametersB: 7,
          layers: 32,
          kvHeads: 8,
          headDim: 128,
          maxContextLength: 8192,
        },
      },
    });
    const error = rejection(
      { ...valid, model: 'private-7b', runtime: 'ollama' },
      custom,
    );
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toMatch(
      /has no Ollama tag, so it cannot run on ollama/,
    );
    expect(error.allowed).not.toContain('private-7b');
  });

  it('rejects a tier no pool offers', () => {
    const noMig = parsePlatform({
      ...demoPlatformConfig,
      pools: demoPlatformConfig.pools.filter(p => p.name !== 'a100-mig'),
      teams: [{ name: 'solo', monthlyBudget: 10 }],
    });
    const error = rejection({ ...valid, team: 'solo', tier: 'mig' }, noMig);
    expect(error.code).toBe('UNKNOWN_TIER');
    expect(error.message).toMatch(
      /No pool offers the mig tier; allowed in "production": dedicated/,
    );
    expect(error.allowed).toEqual(['dedicated']);
  });

  it('accepts a measured capacity on a pool, and rejects one without a pool or not above 0', () => {
    expect(
      validateServiceRequest(platform, {
        ...valid,
        pool: 'l4-ondemand',
        measuredTokensPerSecond: 1500,
      }).measuredTokensPerSecond,
    ).toBe(1500);
    const noPool = rejection({ ...valid, measuredTokensPerSecond: 1500 });
    expect(noPool.code).toBe('OUT_OF_RANGE');
    expect(noPool.message).toMatch(
      /measuredTokensPerSecond 1500 needs the pool it was measured on/,
    );
    expect(noPool.allowed).toContain('l4-ondemand');
    expect(
      rejection({ ...valid, pool: 'l4-ondemand', measuredTokensPerSecond: 0 })
        .message,
    ).toMatch(/measuredTokensPerSecond/);
  });
});

describe('serviceRequestSchema', () => {
  it('parses a request body without a platform', () => {
    expect(serviceRequestSchema.safeParse(valid).success).toBe(true);
    expect(
      serviceRequestSchema.safeParse({ ...valid, name: 'X' }).success,
    ).toBe(false);
  });
});
