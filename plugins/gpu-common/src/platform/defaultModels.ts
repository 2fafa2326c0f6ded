import { DtypeCheckpoints, ModelSpec } from './types';

/** The base repository in bf16 and fp16 (vLLM casts on load) and fp8 (vLLM's on-load FP8 quantisation). */
function fromBase(
  huggingFaceId: string,
): Record<'bf16' | 'fp16' | 'fp8', DtypeCheckpoints> {
  return {
    bf16: { vllm: { huggingFaceId, format: 'none' } },
    fp16: { vllm: { huggingFaceId, format: 'none' } },
    fp8: { vllm: { huggingFaceId, format: 'fp8' } },
  };
}

/** Ollama library tags `<name>:<size>-instruct[-version]-{fp16,q8_0,q4_K_M}`. */
function ollamaTags(
  prefix: string,
): Record<'fp16' | 'int8' | 'int4', DtypeCheckpoints> {
  return {
    fp16: { ollama: { tag: `${prefix}-fp16`, format: 'f16' } },
    int8: { ollama: { tag: `${prefix}-q8_0`, format: 'q8_0' } },
    int4: { ollama: { tag: `${prefix}-q4_K_M`, format: 'q4_K_M' } },
  };
}

/** Both runtimes' checkpoints, dtype by dtype. */
function checkpoints(
  vllm: Partial<ModelSpec['checkpoints']>,
  ollama: Partial<ModelSpec['checkpoints']>,
): ModelSpec['checkpoints'] {
  const merged: ModelSpec['checkpoints'] = {};
  for (const [dtype, entry] of [
    ...Object.entries(vllm),
    ...Object.entries(ollama),
  ] as [keyof ModelSpec['checkpoints'], DtypeCheckpoints][]) {
    merged[dtype] = { ...merged[dtype], ...entry };
  }
  return merged;
}

/**
 * The model catalogue without configuration, keyed by catalogue name. Architecture figures are from each model's
 * Hugging Face `config.json` (`embeddingParametersB`: vocab_size x hidden_size, twice when tie_word_embeddings is
 * false); `gpu.models` in app-config extends or overrides these.
 *
 * Checkpoints: vLLM serves bf16 and fp16 from the base repository and fp8 by quantising it on load
 * (`--quantization fp8`); int8 and int4 only where a published quantised repository exists (AWQ, GPTQ or
 * llm-compressor's compressed-tensors). Ollama serves the library's `-fp16`, `-q8_0` and `-q4_K_M` tags (no bf16 or
 * fp8 tags exist).
 *
 * @public
 */
export const defaultModels: Record<string, ModelSpec> = {
  'llama-3.1-8b': {
    name: 'llama-3.1-8b',
    checkpoints: checkpoints(
      {
        ...fromBase('meta-llama/Llama-3.1-8B-Instruct'),
        int8: {
          vllm: {
            huggingFaceId: 'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8',
            format: 'compressed-tensors',
          },
        },
        int4: {
          vllm: {
            huggingFaceId: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
            format: 'awq',
          },
        },
      },
      ollamaTags('llama3.1:8b-instruct'),
    ),
    parametersB: 8.03,
    embeddingParametersB: 1.05,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'llama-3.1-70b': {
    name: 'llama-3.1-70b',
    checkpoints: checkpoints(
      {
        ...fromBase('meta-llama/Llama-3.1-70B-Instruct'),
        int8: {
          vllm: {
            huggingFaceId:
              'RedHatAI/Meta-Llama-3.1-70B-Instruct-quantized.w8a8',
            format: 'compressed-tensors',
          },
        },
        int4: {
          vllm: {
            huggingFaceId:
              'hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4',
            format: 'awq',
          },
        },
      },
      ollamaTags('llama3.1:70b-instruct'),
    ),
    parametersB: 70.6,
    embeddingParametersB: 2.1,
    layers: 80,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'llama-3.2-3b': {
    name: 'llama-3.2-3b',
    checkpoints: checkpoints(
      {
        ...fromBase('meta-llama/Llama-3.2-3B-Instruct'),
        int8: {
          vllm: {
            huggingFaceId: 'RedHatAI/Llama-3.2-3B-Instruct-quantized.w8a8',
            format: 'compressed-tensors',
          },
        },
        int4: {
          vllm: {
            huggingFaceId: 'RedHatAI/Llama-3.2-3B-Instruct-quantized.w4a16',
            format: 'compressed-tensors',
          },
        },
      },
      ollamaTags('llama3.2:3b-instruct'),
    ),
    parametersB: 3.21,
    // Tied embeddings: 128,256 x 3,072 once.
    embeddingParametersB: 0.394,
    layers: 28,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'mistral-7b': {
    name: 'mistral-7b',
    checkpoints: checkpoints(
      fromBase('mistralai/Mistral-7B-Instruct-v0.3'),
      ollamaTags('mistral:7b-instruct-v0.3'),
    ),
    parametersB: 7.25,
    embeddingParametersB: 0.268,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'mixtral-8x7b': {
    name: 'mixtral-8x7b',
    checkpoints: checkpoints(
      {
        ...fromBase('mistralai/Mixtral-8x7B-Instruct-v0.1'),
        int4: {
          vllm: {
            huggingFaceId: 'TheBloke/Mixtral-8x7B-Instruct-v0.1-AWQ',
            format: 'awq',
          },
        },
      },
      ollamaTags('mixtral:8x7b-instruct-v0.1'),
    ),
    parametersB: 46.7,
    embeddingParametersB: 0.262,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'qwen2.5-7b': {
    name: 'qwen2.5-7b',
    checkpoints: checkpoints(
      {
        ...fromBase('Qwen/Qwen2.5-7B-Instruct'),
        int8: {
          vllm: {
            huggingFaceId: 'Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8',
            format: 'gptq',
          },
        },
        int4: {
          vllm: {
            huggingFaceId: 'Qwen/Qwen2.5-7B-Instruct-AWQ',
            format: 'awq',
          },
        },
      },
      ollamaTags('qwen2.5:7b-instruct'),
    ),
    parametersB: 7.62,
    embeddingParametersB: 1.09,
    layers: 28,
    kvHeads: 4,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'phi-3-mini': {
    name: 'phi-3-mini',
    checkpoints: checkpoints(
      fromBase('microsoft/Phi-3-mini-4k-instruct'),
      ollamaTags('phi3:3.8b-mini-4k-instruct'),
    ),
    parametersB: 3.82,
    embeddingParametersB: 0.197,
    layers: 32,
    kvHeads: 32,
    headDim: 96,
    defaultDtype: 'bf16',
    maxContextLength: 4096,
  },
};
