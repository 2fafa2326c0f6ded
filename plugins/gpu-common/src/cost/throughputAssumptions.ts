/**
 * Peak memory bandwidth in GB/s (10^9 bytes per second) per GPU catalogue name, from NVIDIA's data sheets (SXM
 * variants where a model has several): T4 320, A10G 600 (as A10), L4 300, L40S 864, A30 933, A100-40GB 1,555,
 * A100-80GB 2,039, H100-80GB 3,350, H100 NVL 3,900, H200 4,800. A GPU model not listed gets no throughput estimate.
 *
 * @public
 */
export const GPU_MEMORY_BANDWIDTH_GBPS: Readonly<Record<string, number>> = {
  T4: 320,
  A10G: 600,
  L4: 300,
  L40S: 864,
  'A30-24GB': 933,
  'A100-40GB': 1555,
  'A100-80GB': 2039,
  'H100-80GB': 3350,
  'H100-NVL-94GB': 3900,
  'H200-141GB': 4800,
};

/**
 * Fraction of peak memory bandwidth a decode step achieves. Assumption: vLLM's paged-attention and GEMV kernels reach
 * roughly 70-85% of peak DRAM bandwidth during decode; 0.8 is used.
 *
 * @public
 */
export const DECODE_BANDWIDTH_EFFICIENCY = 0.8;

/**
 * Tokens (prompt + generated so far) an in-flight sequence holds on average, capped by the max-model-len. Assumption:
 * chat traffic of ~700 prompt and ~300 output tokens per request (the report summariser uses 300 output tokens per request).
 *
 * @public
 */
export const ASSUMED_AVERAGE_CONTEXT_TOKENS = 1024;

/**
 * The request shape the quote prices a request and splits input from output tokens by. Assumption: chat traffic of
 * 700 prompt (input) tokens and 300 generated (output) tokens per request, the same shape as
 * {@link ASSUMED_AVERAGE_CONTEXT_TOKENS}.
 *
 * @public
 */
export const ASSUMED_REQUEST_TOKENS: Readonly<{
  input: number;
  output: number;
}> = { input: 700, output: 300 };

/**
 * Prompt tokens a replica prefills in the GPU time it takes to generate one output token. Assumption: prefill runs the
 * whole prompt through the model in one compute-bound pass while decode reads all weights once per generated token, so
 * prefill processes prompt tokens roughly an order of magnitude faster; 10 is used. It sets the input/output split:
 * an input token costs 1/10 of an output token.
 *
 * @public
 */
export const PREFILL_TOKENS_PER_DECODE_TOKEN = 10;
