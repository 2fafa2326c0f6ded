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
      huggingFaceId: 'meta-llama/Llama-3.1-8B-Instruct',
      ollamaTag: 'llama3.1:8b',
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
      expect(model.huggingFaceId).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(model.ollamaTag).toMatch(/^[\w.-]+:[\w.-]+$/);
    }
  });
});
