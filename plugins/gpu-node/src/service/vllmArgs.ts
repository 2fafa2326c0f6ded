import { Dtype } from '@internal/backstage-plugin-gpu-common';
import { ServiceContext } from './resolveServiceContext';

/**
 * vLLM `--dtype` and `--quantization` for a weight dtype. fp8 quantises the checkpoint on load; int4 needs an AWQ
 * checkpoint; int8 keeps `auto` and lets the checkpoint's quantisation config decide.
 */
const DTYPE_FLAGS: Record<Dtype, { dtype: string; quantization?: string }> = {
  fp32: { dtype: 'float32' },
  bf16: { dtype: 'bfloat16' },
  fp16: { dtype: 'float16' },
  fp8: { dtype: 'auto', quantization: 'fp8' },
  int8: { dtype: 'auto' },
  int4: { dtype: 'auto', quantization: 'awq' },
};

/**
 * Arguments of the vLLM OpenAI server. The service name is the first served model name, so vLLM's metrics carry
 * `model_name="<service>"`; the catalogue name is accepted too.
 */
export function vllmArgs(context: ServiceContext): string[] {
  const { request, model, slice } = context;
  const flags = DTYPE_FLAGS[context.dtype];
  const servedNames = [...new Set([request.name, model.name])];
  return [
    '--model',
    model.huggingFaceId,
    '--served-model-name',
    ...servedNames,
    '--port',
    '8000',
    '--max-model-len',
    String(request.maxModelLen),
    '--max-num-seqs',
    String(request.concurrency),
    '--dtype',
    flags.dtype,
    ...(flags.quantization ? ['--quantization', flags.quantization] : []),
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
