import { ModelSpec } from './types';

/**
 * The model catalogue without configuration, keyed by catalogue name. Architecture figures are from each model's
 * Hugging Face `config.json`; `gpu.models` in app-config extends or overrides these.
 *
 * @public
 */
export const defaultModels: Record<string, ModelSpec> = {
  'llama-3.1-8b': {
    name: 'llama-3.1-8b',
    huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
    ollamaTag: 'llama3.1:8b',
    parametersB: 8.03,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'llama-3.1-70b': {
    name: 'llama-3.1-70b',
    huggingFaceId: 'meta-llama/Llama-3.1-70B-Instruct',
    ollamaTag: 'llama3.1:70b',
    parametersB: 70.6,
    layers: 80,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'llama-3.2-3b': {
    name: 'llama-3.2-3b',
    huggingFaceId: 'meta-llama/Llama-3.2-3B-Instruct',
    ollamaTag: 'llama3.2:3b',
    parametersB: 3.21,
    layers: 28,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 131072,
  },
  'mistral-7b': {
    name: 'mistral-7b',
    huggingFaceId: 'mistralai/Mistral-7B-Instruct-v0.3',
    ollamaTag: 'mistral:7b',
    parametersB: 7.25,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'mixtral-8x7b': {
    name: 'mixtral-8x7b',
    huggingFaceId: 'mistralai/Mixtral-8x7B-Instruct-v0.1',
    ollamaTag: 'mixtral:8x7b',
    parametersB: 46.7,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'qwen2.5-7b': {
    name: 'qwen2.5-7b',
    huggingFaceId: 'Qwen/Qwen2.5-7B-Instruct',
    ollamaTag: 'qwen2.5:7b',
    parametersB: 7.62,
    layers: 28,
    kvHeads: 4,
    headDim: 128,
    defaultDtype: 'bf16',
    maxContextLength: 32768,
  },
  'phi-3-mini': {
    name: 'phi-3-mini',
    huggingFaceId: 'microsoft/Phi-3-mini-4k-instruct',
    ollamaTag: 'phi3:mini',
    parametersB: 3.82,
    layers: 32,
    kvHeads: 32,
    headDim: 96,
    defaultDtype: 'bf16',
    maxContextLength: 4096,
  },
};
