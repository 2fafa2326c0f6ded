import { defaultModels } from './defaultModels';

describe('defaultModels', () => {
  it('describes the catalogue models with their real architecture', () => {
    expect(defaultModels['llama-3.1-8b']).toMatchObject({
      layers: 32,
      kvHeads: 8,
      headDim: 128,
      parametersB: 8.03,
      defaultDtype: 'bf16',
      maxContextLength: 131072,
      // 128,256 x 4,096 twice (untied output head), in billions.
      embeddingParametersB: 1.05,
    });
    expect(defaultModels['llama-3.1-8b'].checkpoints).toEqual({
      bf16: {
        vllm: {
          huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
          format: 'none',
        },
      },
      fp16: {
        vllm: {
          huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
          format: 'none',
        },
        ollama: { tag: 'llama3.1:8b-instruct-fp16', format: 'f16' },
      },
      fp8: {
        vllm: {
          huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
          format: 'fp8',
        },
      },
      int8: {
        vllm: {
          huggingFaceId: 'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8',
          format: 'compressed-tensors',
        },
        ollama: { tag: 'llama3.1:8b-instruct-q8_0', format: 'q8_0' },
      },
      int4: {
        vllm: {
          huggingFaceId: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
          format: 'awq',
        },
        ollama: { tag: 'llama3.1:8b-instruct-q4_K_M', format: 'q4_K_M' },
      },
    });
    expect(defaultModels['llama-3.1-70b']).toMatchObject({
      layers: 80,
      kvHeads: 8,
      headDim: 128,
      parametersB: 70.6,
    });
    expect(defaultModels['mistral-7b']).toMatchObject({
      layers: 32,
      kvHeads: 8,
      headDim: 128,
      parametersB: 7.25,
      maxContextLength: 32768,
    });
    expect(defaultModels['mixtral-8x7b']).toMatchObject({
      layers: 32,
      kvHeads: 8,
      headDim: 128,
      parametersB: 46.7,
    });
    expect(defaultModels['llama-3.2-3b']).toMatchObject({
      layers: 28,
      kvHeads: 8,
      headDim: 128,
      parametersB: 3.21,
    });
    expect(Object.keys(defaultModels)).toEqual(
      expect.arrayContaining(['qwen2.5-7b', 'phi-3-mini']),
    );
  });

  it('names every model by its key and gives HF ids and Ollama tags', () => {
    for (const [key, model] of Object.entries(defaultModels)) {
      expect(model.name).toBe(key);
      expect(model.checkpoints.bf16?.vllm?.huggingFaceId).toMatch(
        /^[\w.-]+\/[\w.-]+$/,
      );
      const entries = Object.values(model.checkpoints);
      for (const vllm of entries.flatMap(e => (e.vllm ? [e.vllm] : []))) {
        expect(vllm.huggingFaceId).toMatch(/^[\w.-]+\/[\w.-]+$/);
      }
      for (const ollama of entries.flatMap(e => (e.ollama ? [e.ollama] : []))) {
        // The tag ends in the GGUF type it names, e.g. -q4_K_M.
        const suffix = ollama.format === 'f16' ? 'fp16' : ollama.format;
        expect(ollama.tag).toMatch(new RegExp(`^[\\w.-]+:[\\w.-]+-${suffix}$`));
      }
      // Ollama has int4, int8 and fp16 tags of every model, vLLM no int4 without a quantised repository.
      expect(Object.keys(model.checkpoints)).toEqual(
        expect.arrayContaining(['bf16', 'fp16', 'fp8', 'int4']),
      );
    }
  });
});
