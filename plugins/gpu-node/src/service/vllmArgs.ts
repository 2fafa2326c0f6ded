import {
  Dtype,
  KV_CACHE_BYTES,
  VllmCheckpoint,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { ServiceContext } from './resolveServiceContext';

/**
 * vLLM `--dtype` of a weight dtype: the activation dtype. A quantised checkpoint keeps `auto`, which takes the
 * checkpoint's own (its `torch_dtype`); fp8 on load quantises a bf16/fp16 checkpoint, whose `auto` is its bf16/fp16.
 */
const VLLM_DTYPE: Record<Dtype, string> = {
  fp32: 'float32',
  bf16: 'bfloat16',
  fp16: 'float16',
  fp8: 'auto',
  int8: 'auto',
  int4: 'auto',
};

/**
 * `--kv-cache-dtype` of a weight dtype: sizing keeps the KV cache in `KV_CACHE_BYTES[dtype]` bytes an element (1 for
 * fp8), so an fp8 service must store it in fp8 too; every other dtype keeps vLLM's default (the activation dtype).
 */
function kvCacheArgs(dtype: Dtype): string[] {
  return KV_CACHE_BYTES[dtype] === 1 ? ['--kv-cache-dtype', 'fp8'] : [];
}

/** `--quantization` of a checkpoint: its format, none for weights stored in the dtype itself. */
function quantizationArgs(checkpoint: VllmCheckpoint): string[] {
  return checkpoint.format === 'none'
    ? []
    : ['--quantization', checkpoint.format];
}

/**
 * Arguments of the vLLM OpenAI server: the catalogue's checkpoint of the dtype as `--model`, with the
 * `--quantization` its format says. The service name is the first served model name, so vLLM's metrics carry
 * `model_name="<service>"`; the catalogue name is accepted too.
 */
export function vllmArgs(context: ServiceContext): string[] {
  const { request, model, slice, checkpoint } = context;
  if (checkpoint.runtime !== 'vllm') {
    throw new Error(
      `vLLM needs a Hugging Face checkpoint; the ${context.dtype} checkpoint is for ${checkpoint.runtime}`,
    );
  }
  const servedNames = [...new Set([request.name, model.name])];
  return [
    '--model',
    checkpoint.huggingFaceId,
    '--served-model-name',
    ...servedNames,
    '--port',
    '8000',
    '--max-model-len',
    String(request.maxModelLen),
    '--max-num-seqs',
    String(request.concurrency),
    '--dtype',
    VLLM_DTYPE[context.dtype],
    ...quantizationArgs(checkpoint),
    ...kvCacheArgs(context.dtype),
    '--gpu-memory-utilization',
    String(slice.gpuMemoryUtilization),
    ...(slice.gpusPerReplica > 1
      ? ['--tensor-parallel-size', String(slice.gpusPerReplica)]
      : []),
  ];
}

/**
 * PromQL label matchers that select one service's vLLM series, e.g. `namespace="ml",model_name="summariser"`.
 *
 * @public
 */
export function vllmMetricSelector(
  namespace: string,
  serviceName: string,
): string {
  return `namespace="${namespace}",model_name="${serviceName}"`;
}
