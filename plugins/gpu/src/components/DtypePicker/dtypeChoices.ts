import {
  availableDtypes,
  checkpointFor,
  defaultDtypeFor,
  Dtype,
  ModelSpec,
  Runtime,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** One precision the form offers: the dtype stored and how the runtime loads it. */
export interface DtypeChoice {
  dtype: Dtype;
  /** e.g. `int4 (GGUF q4_K_M)` for Ollama, `int4 (AWQ checkpoint)` or `fp8 (quantised on load)` for vLLM. */
  label: string;
  /** What is loaded: the Hugging Face repository (vLLM) or the Ollama tag. */
  loads: string;
}

const VLLM_FORMATS: Record<string, string> = {
  awq: 'AWQ',
  gptq: 'GPTQ',
  'compressed-tensors': 'compressed-tensors',
};

/**
 * The precisions `runtime` serves `model` in, from the model catalogue (most precise first): Ollama's GGUF tags
 * (fp16, q8_0, q4_K_M), vLLM's base repository (bf16, fp16), its on-load fp8 quantisation and any published
 * quantised repository.
 */
export function dtypeChoices(
  model: ModelSpec,
  runtime: Runtime,
): DtypeChoice[] {
  return availableDtypes(model, runtime).map(dtype => {
    const checkpoint = checkpointFor(model, dtype, runtime)!;
    if (checkpoint.runtime === 'ollama') {
      return {
        dtype,
        label: `${dtype} (GGUF ${checkpoint.format})`,
        loads: `Ollama tag ${checkpoint.tag}`,
      };
    }
    let how = '';
    if (checkpoint.format === 'fp8') how = ' (quantised on load)';
    else if (checkpoint.format !== 'none') {
      how = ` (${
        VLLM_FORMATS[checkpoint.format] ?? checkpoint.format
      } checkpoint)`;
    }
    return {
      dtype,
      label: `${dtype}${how}`,
      loads: `Hugging Face ${checkpoint.huggingFaceId}`,
    };
  });
}

/**
 * The precision the field holds for `model` on `runtime`: `current` when the runtime serves the model in it, else
 * the catalogue's default for the pair (`defaultDtypeFor`: Ollama has no bf16 tags, so bf16 becomes fp16).
 */
export function dtypeFor(
  model: ModelSpec,
  runtime: Runtime,
  current: string | undefined,
): Dtype {
  const available = availableDtypes(model, runtime);
  return available.find(d => d === current) ?? defaultDtypeFor(model, runtime);
}
