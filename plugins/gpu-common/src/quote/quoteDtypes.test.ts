import { demoPlatformConfig } from '../platform/demoPlatformConfig';
import { parsePlatform } from '../platform/parsePlatform';
import { ServiceRequest } from '../service/types';
import {
  CUDA_CONTEXT_BYTES_PER_GPU,
  MIN_ACTIVATION_BYTES,
} from '../sizing/estimateMemory';
import { summariserRequest } from '../testUtils';
import { quoteService } from './quoteService';
import { TeamUsage } from './types';

const platform = parsePlatform(demoPlatformConfig);
const noUsage: TeamUsage = { reservedGpuUnits: {}, committedMonthlyCost: 0 };

describe('quoteService dtypes', () => {
  it("sizes int4 by the AWQ checkpoint's bytes and names the repository it loads", () => {
    const request: ServiceRequest = { ...summariserRequest, dtype: 'int4' };
    const quote = quoteService(platform, request, noUsage);
    expect(quote.dtype).toBe('int4');
    expect(quote.dtypes.find(d => d.dtype === 'int4')).toEqual({
      dtype: 'int4',
      available: true,
      checkpoint: 'hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4',
      format: 'awq',
    });
    // (8.03 - 1.05) B x (0.5 + 2.5 / 128) bytes + 1.05 B embedding and head parameters x 2 bytes = 5.7263 GB.
    const weights = 6.98e9 * 0.51953125 + 2.1e9;
    const option = quote.recommended!;
    expect(option.memory.weightsBytes).toBeCloseTo(weights, -3);
    // Overhead: one CUDA context plus activations; 3% of the weights is 171.8 MB, below the 256 MiB floor.
    expect(option.memory.overheadBytes).toBe(
      CUDA_CONTEXT_BYTES_PER_GPU + MIN_ACTIVATION_BYTES,
    );
  });

  it('quotes a dtype without a checkpoint as unavailable with the reason, and lists the others', () => {
    const request: ServiceRequest = {
      ...summariserRequest,
      model: 'mistral-7b',
      dtype: 'int4',
    };
    const quote = quoteService(platform, request, noUsage);
    expect(quote.options).toEqual([]);
    expect(quote.unavailable).toEqual([]);
    expect(quote.recommended).toBeUndefined();
    expect(quote.dtypes.map(d => [d.dtype, d.available])).toEqual([
      ['fp32', false],
      ['bf16', true],
      ['fp16', true],
      ['fp8', true],
      ['int8', false],
      ['int4', false],
    ]);
    expect(quote.dtypes.find(d => d.dtype === 'int4')?.reason).toBe(
      'The model catalogue names no int4 Hugging Face checkpoint of mistral-7b for vllm; available: bf16, fp16 or fp8',
    );
  });

  it('quotes Ollama in fp16 when the request names no dtype (no bf16 tags), by the tag of each dtype', () => {
    const { dtype: _, ...withoutDtype } = summariserRequest;
    const request: ServiceRequest = {
      ...withoutDtype,
      runtime: 'ollama',
      concurrency: 1,
      maxModelLen: 2048,
      environment: 'dev',
    };
    const quote = quoteService(platform, request, noUsage);
    expect(quote.dtype).toBe('fp16');
    expect(
      quote.dtypes.filter(d => d.available).map(d => [d.dtype, d.checkpoint]),
    ).toEqual([
      ['fp16', 'llama3.1:8b-instruct-fp16'],
      ['int8', 'llama3.1:8b-instruct-q8_0'],
      ['int4', 'llama3.1:8b-instruct-q4_K_M'],
    ]);
    // GGUF f16: 8.03 B x 2 bytes.
    expect(quote.options[0].memory.weightsBytes).toBeCloseTo(16.06e9, -3);
  });
});
