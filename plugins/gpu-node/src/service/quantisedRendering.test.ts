import type { V1Deployment } from '@kubernetes/client-node';
import { Dtype, ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';
import { renderServiceManifests } from '../renderServiceManifests';
import { demoPlatform, fittingPlacement } from '../__testUtils__/platforms';

const request: ServiceRequest = {
  name: 'chat',
  team: 'ml-platform',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  maxModelLen: 4096,
  concurrency: 4,
  replicas: 1,
  environment: 'dev',
};

function containerOf(changes: Partial<ServiceRequest>) {
  const platform = demoPlatform();
  const changed = { ...request, ...changes };
  const placement = fittingPlacement(
    platform,
    changed,
    s => s.tier === 'dedicated',
  );
  const deployment = renderServiceManifests(platform, changed, placement, {
    serviceId: 'svc-0001',
  }).find(o => o.kind === 'Deployment') as V1Deployment;
  return deployment.spec!.template.spec!;
}

function flags(dtype: Dtype, model = 'llama-3.1-8b') {
  const args = containerOf({ dtype, model }).containers[0].args!;
  const value = (flag: string) =>
    args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined;
  return {
    model: value('--model'),
    dtype: value('--dtype'),
    quantization: value('--quantization'),
    kvCacheDtype: value('--kv-cache-dtype'),
  };
}

describe('quantised checkpoints in the rendered vLLM and Ollama containers', () => {
  it("loads each dtype's repository of Llama-3.1-8B with the quantisation its format says", () => {
    expect(flags('bf16')).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      dtype: 'bfloat16',
      quantization: undefined,
      kvCacheDtype: undefined,
    });
    expect(flags('fp16')).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      dtype: 'float16',
      quantization: undefined,
      kvCacheDtype: undefined,
    });
    // fp8: vLLM quantises the bf16 repository on load, and keeps the KV cache in fp8 as the fit assumed (1 byte).
    expect(flags('fp8')).toEqual({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      dtype: 'auto',
      quantization: 'fp8',
      kvCacheDtype: 'fp8',
    });
    expect(flags('int8')).toEqual({
      model: 'RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8',
      dtype: 'auto',
      quantization: 'compressed-tensors',
      kvCacheDtype: undefined,
    });
    expect(flags('int4')).toEqual({
      model: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
      dtype: 'auto',
      quantization: 'awq',
      kvCacheDtype: undefined,
    });
    expect(flags('int8', 'qwen2.5-7b')).toEqual({
      model: 'Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8',
      dtype: 'auto',
      quantization: 'gptq',
      kvCacheDtype: undefined,
    });
  });

  it('pulls the Ollama tag of the dtype', () => {
    const tag = (dtype: Dtype) =>
      containerOf({ runtime: 'ollama', dtype }).initContainers![0].env!.find(
        e => e.name === 'OLLAMA_MODEL',
      )!.value;
    expect(tag('fp16')).toBe('llama3.1:8b-instruct-fp16');
    expect(tag('int8')).toBe('llama3.1:8b-instruct-q8_0');
    expect(tag('int4')).toBe('llama3.1:8b-instruct-q4_K_M');
  });

  it('never renders a dtype without a checkpoint, naming the available ones', () => {
    const platform = demoPlatform();
    const placement = fittingPlacement(
      platform,
      { ...request, model: 'mistral-7b', dtype: 'bf16' },
      s => s.tier === 'dedicated',
    );
    expect(() =>
      renderServiceManifests(
        platform,
        { ...request, model: 'mistral-7b', dtype: 'int4' },
        placement,
        { serviceId: 'svc-0001' },
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'OUT_OF_RANGE',
        message:
          'The model catalogue names no int4 Hugging Face checkpoint of mistral-7b for vllm; available: bf16, fp16 or fp8',
        allowed: ['bf16', 'fp16', 'fp8'],
      }),
    );
  });
});
