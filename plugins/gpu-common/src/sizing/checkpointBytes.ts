import { Checkpoint } from '../platform/checkpoints';
import {
  Dtype,
  ModelSpec,
  OllamaQuantization,
  VllmQuantization,
} from '../platform/types';

/**
 * Bytes per weight of an unquantised dtype (a `none` vLLM checkpoint is loaded in the dtype itself).
 *
 * @public
 */
export const UNQUANTISED_BYTES: Readonly<Record<Dtype, number>> = {
  fp32: 4,
  bf16: 2,
  fp16: 2,
  fp8: 1,
  int8: 1,
  int4: 0.5,
};

/**
 * Weights per quantisation group of the group-quantised vLLM formats (AWQ, GPTQ and int4 compressed-tensors, all
 * published with group size 128).
 *
 * @public
 */
export const QUANTISATION_GROUP_SIZE = 128;

/**
 * Bytes per weight of a GGUF quantisation (Ollama), all tensors included (GGUF quantises the embeddings too):
 * f16 2; q8_0 34 bytes per block of 32 (32 int8 + one fp16 scale) = 1.0625; q4_0 18 bytes per block of 32 =
 * 0.5625; q4_K_M about 4.85 bits (Q4_K blocks of 4.5 bits, with half the attention-value and feed-forward-down
 * tensors and the output tensor in Q6_K at 6.5625 bits), averaged over the model: 0.60625.
 *
 * @public
 */
export const GGUF_BYTES_PER_WEIGHT: Readonly<
  Record<OllamaQuantization, number>
> = {
  f16: 2,
  q8_0: 34 / 32,
  q4_0: 18 / 32,
  q4_K_M: 4.85 / 8,
};

function groupQuantised(format: VllmQuantization, dtype: Dtype): boolean {
  return (
    format === 'awq' ||
    format === 'gptq' ||
    (format === 'compressed-tensors' && dtype === 'int4')
  );
}

/**
 * Bytes per quantised weight of a vLLM checkpoint: the dtype's bits (fp8 and int8 1 byte, int4 half a byte) plus,
 * for group-quantised formats, one 16-bit scale and one zero point of the same bits per group of
 * {@link QUANTISATION_GROUP_SIZE} weights (int4: 0.5 + (2 + 0.5) / 128 = 0.51953125). Per-tensor and per-channel
 * scales (fp8, int8 compressed-tensors) are below 0.1% and not counted.
 *
 * @public
 */
export function vllmBytesPerQuantisedWeight(
  format: VllmQuantization,
  dtype: Dtype,
): number {
  const bytes = UNQUANTISED_BYTES[dtype];
  return groupQuantised(format, dtype)
    ? bytes + (2 + bytes) / QUANTISATION_GROUP_SIZE
    : bytes;
}

/**
 * Bytes of a checkpoint's weights in GPU memory.
 *
 * - vLLM, `none`: parameters x the dtype's bytes (bf16: 8.03 B x 2 = 16.06 GB for Llama-3.1-8B).
 * - vLLM, quantised: the token embeddings and output head (`embeddingParametersB`) stay in 16 bits, every other
 *   weight takes {@link vllmBytesPerQuantisedWeight} (Llama-3.1-8B AWQ int4: (8.03 - 1.05) B x 0.51953125 + 1.05 B x 2
 *   = 5.726 GB; fp8: 6.98 B x 1 + 2.1 GB = 9.08 GB).
 * - Ollama: parameters x {@link GGUF_BYTES_PER_WEIGHT} of the tag's quantisation.
 *
 * @public
 */
export function checkpointWeightsBytes(
  model: ModelSpec,
  dtype: Dtype,
  checkpoint: Checkpoint,
): number {
  const parameters = model.parametersB * 1e9;
  if (checkpoint.runtime === 'ollama') {
    return parameters * GGUF_BYTES_PER_WEIGHT[checkpoint.format];
  }
  if (checkpoint.format === 'none') {
    return parameters * UNQUANTISED_BYTES[dtype];
  }
  const embeddings = Math.min(model.embeddingParametersB * 1e9, parameters);
  return (
    (parameters - embeddings) *
      vllmBytesPerQuantisedWeight(checkpoint.format, dtype) +
    embeddings * 2
  );
}
