import { GpuDomainError, listAllowed } from '../errors';
import {
  Dtype,
  ModelSpec,
  OllamaCheckpoint,
  Runtime,
  VllmCheckpoint,
} from './types';

/**
 * Dtypes from the most to the least precise: the order availability is listed in and a runtime's default is
 * chosen from.
 *
 * @public
 */
export const DTYPE_PRECISION_ORDER: readonly Dtype[] = [
  'fp32',
  'bf16',
  'fp16',
  'fp8',
  'int8',
  'int4',
];

/**
 * What a runtime loads for a dtype: a Hugging Face checkpoint (vLLM) or an Ollama tag.
 *
 * @public
 */
export type Checkpoint =
  | ({ runtime: 'vllm' } & VllmCheckpoint)
  | ({ runtime: 'ollama' } & OllamaCheckpoint);

/**
 * The checkpoint `runtime` loads for `model` in `dtype`, or undefined when the catalogue names none.
 *
 * @public
 */
export function checkpointFor(
  model: ModelSpec,
  dtype: Dtype,
  runtime: Runtime,
): Checkpoint | undefined {
  const entry = model.checkpoints[dtype];
  if (runtime === 'vllm') {
    return entry?.vllm ? { runtime, ...entry.vllm } : undefined;
  }
  return entry?.ollama ? { runtime, ...entry.ollama } : undefined;
}

/**
 * The dtypes `runtime` can serve `model` in, most precise first.
 *
 * @public
 */
export function availableDtypes(model: ModelSpec, runtime: Runtime): Dtype[] {
  return DTYPE_PRECISION_ORDER.filter(dtype =>
    checkpointFor(model, dtype, runtime),
  );
}

/**
 * The dtype a request of `model` on `runtime` gets when it names none: the model's `defaultDtype` when the runtime
 * has a checkpoint in it, else the most precise dtype it has one in (Ollama has no bf16 tags: fp16). The model's
 * `defaultDtype` when the runtime has none at all (the request is then refused as unavailable).
 *
 * @public
 */
export function defaultDtypeFor(model: ModelSpec, runtime: Runtime): Dtype {
  if (checkpointFor(model, model.defaultDtype, runtime)) {
    return model.defaultDtype;
  }
  return availableDtypes(model, runtime)[0] ?? model.defaultDtype;
}

/**
 * Why `runtime` cannot serve `model` in `dtype`, naming the dtypes it can; undefined when it can.
 *
 * @public
 */
export function unavailableDtypeReason(
  model: ModelSpec,
  dtype: Dtype,
  runtime: Runtime,
): string | undefined {
  if (checkpointFor(model, dtype, runtime)) return undefined;
  const what = runtime === 'vllm' ? 'Hugging Face checkpoint' : 'Ollama tag';
  return `The model catalogue names no ${dtype} ${what} of ${
    model.name
  } for ${runtime}; available: ${listAllowed(availableDtypes(model, runtime))}`;
}

/**
 * The checkpoint `runtime` loads for `model` in `dtype`.
 *
 * @throws GpuDomainError `OUT_OF_RANGE` when the catalogue names none, with the available dtypes as `allowed`.
 * @public
 */
export function requireCheckpoint(
  model: ModelSpec,
  dtype: Dtype,
  runtime: Runtime,
): Checkpoint {
  const checkpoint = checkpointFor(model, dtype, runtime);
  if (!checkpoint) {
    throw new GpuDomainError(
      'OUT_OF_RANGE',
      unavailableDtypeReason(model, dtype, runtime)!,
      { allowed: availableDtypes(model, runtime) },
    );
  }
  return checkpoint;
}
