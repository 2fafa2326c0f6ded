import { GpuDomainError } from '../errors';
import { availableDtypes, defaultDtypeFor } from './checkpoints';
import { demoPlatformConfig } from './demoPlatformConfig';
import { parsePlatform } from './parsePlatform';

const figures = {
  parametersB: 9.24,
  embeddingParametersB: 1.18,
  layers: 42,
  kvHeads: 8,
  headDim: 256,
  maxContextLength: 8192,
};

function withModels(models: Record<string, unknown>) {
  return parsePlatform({ ...demoPlatformConfig, models });
}

function configMessage(models: Record<string, unknown>): string {
  try {
    withModels(models);
  } catch (error) {
    expect(error).toBeInstanceOf(GpuDomainError);
    return (error as Error).message;
  }
  throw new Error('expected parsePlatform to throw');
}

describe('model checkpoints from config', () => {
  it('reads a checkpoint per dtype, with the formats unquantised and fp8 checkpoints default to', () => {
    const platform = withModels({
      'gemma-2-9b': {
        ...figures,
        checkpoints: {
          bf16: { huggingFaceId: 'google/gemma-2-9b-it' },
          fp8: { huggingFaceId: 'google/gemma-2-9b-it' },
          int4: {
            huggingFaceId: 'acme/gemma-2-9b-it-AWQ',
            format: 'awq',
            ollamaTag: 'gemma2:9b-instruct-q4_K_M',
          },
        },
      },
    });
    expect(platform.models['gemma-2-9b'].checkpoints).toEqual({
      bf16: { vllm: { huggingFaceId: 'google/gemma-2-9b-it', format: 'none' } },
      fp8: { vllm: { huggingFaceId: 'google/gemma-2-9b-it', format: 'fp8' } },
      int4: {
        vllm: { huggingFaceId: 'acme/gemma-2-9b-it-AWQ', format: 'awq' },
        ollama: { tag: 'gemma2:9b-instruct-q4_K_M', format: 'q4_K_M' },
      },
    });
    const gemma = platform.models['gemma-2-9b'];
    expect(availableDtypes(gemma, 'vllm')).toEqual(['bf16', 'fp8', 'int4']);
    expect(availableDtypes(gemma, 'ollama')).toEqual(['int4']);
    expect(defaultDtypeFor(gemma, 'ollama')).toBe('int4');
  });

  it('takes a model-level huggingFaceId and ollamaTag as the default dtype checkpoints (configs before checkpoints)', () => {
    const platform = withModels({
      'gemma-2-9b': {
        ...figures,
        huggingFaceId: 'google/gemma-2-9b-it',
        ollamaTag: 'gemma2:9b',
      },
    });
    expect(platform.models['gemma-2-9b'].checkpoints).toEqual({
      bf16: {
        vllm: { huggingFaceId: 'google/gemma-2-9b-it', format: 'none' },
        ollama: { tag: 'gemma2:9b', format: 'f16' },
      },
    });
  });

  it('lays a dtype over the built-in checkpoints and keeps the others', () => {
    const platform = withModels({
      'llama-3.1-8b': {
        checkpoints: {
          int4: {
            huggingFaceId:
              'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16',
            format: 'compressed-tensors',
          },
        },
      },
    });
    const llama = platform.models['llama-3.1-8b'];
    expect(llama.checkpoints.int4).toEqual({
      vllm: {
        huggingFaceId: 'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16',
        format: 'compressed-tensors',
      },
      ollama: { tag: 'llama3.1:8b-instruct-q4_K_M', format: 'q4_K_M' },
    });
    expect(llama.checkpoints.bf16?.vllm?.huggingFaceId).toBe(
      'meta-llama/Llama-3.1-8B-Instruct',
    );
  });

  it('names the key of a quantised checkpoint without its format, a format the dtype cannot have and a missing embedding size', () => {
    const message = configMessage({
      'gemma-2-9b': {
        ...figures,
        embeddingParametersB: undefined,
        checkpoints: {
          int4: { huggingFaceId: 'acme/gemma-2-9b-it-AWQ' },
          int8: { huggingFaceId: 'acme/gemma-2-9b-it-AWQ', format: 'awq' },
          fp8: { ollamaTag: 'gemma2:9b-fp8' },
          bf16: { huggingFaceId: 'google/gemma-2-9b-it' },
          fp16: { huggingFaceId: 'google/gemma-2-9b-it', format: 'gptq' },
        },
      },
    });
    expect(message).toContain(
      'gpu.models.gemma-2-9b.checkpoints.int4.format: needs its format; allowed: awq, gptq or compressed-tensors',
    );
    expect(message).toContain(
      'gpu.models.gemma-2-9b.checkpoints.int8.format: "awq" is not a format of int8 Hugging Face checkpoints; allowed: gptq or compressed-tensors',
    );
    expect(message).toContain(
      'gpu.models.gemma-2-9b.checkpoints.fp8.ollamaTag: there are no Ollama fp8 tags',
    );
    expect(message).toContain(
      'gpu.models.gemma-2-9b.checkpoints.fp16.format: "gptq" is not a format of fp16 Hugging Face checkpoints; allowed: none',
    );
    expect(
      configMessage({
        'llama-3.1-8b': { checkpoints: { int4: { format: 'gguf' } } },
      }),
    ).toContain('gpu.models["llama-3.1-8b"].checkpoints.int4.format');
  });

  it('asks a new model with a quantised checkpoint for its embedding parameters', () => {
    const { embeddingParametersB: _, ...withoutEmbeddings } = figures;
    expect(
      configMessage({
        'gemma-2-9b': {
          ...withoutEmbeddings,
          checkpoints: {
            int4: { huggingFaceId: 'acme/gemma-2-9b-it-AWQ', format: 'awq' },
          },
        },
      }),
    ).toContain(
      'gpu.models.gemma-2-9b.embeddingParametersB: is needed to size the quantised int4 checkpoints',
    );
  });
});
