/**
 * DCGM exporter metrics the usage views read and the alert rules watch.
 *
 * @public
 */
export const DCGM = {
  gpuUtil: 'DCGM_FI_DEV_GPU_UTIL',
  engineActive: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  fbUsed: 'DCGM_FI_DEV_FB_USED',
  fbFree: 'DCGM_FI_DEV_FB_FREE',
  power: 'DCGM_FI_DEV_POWER_USAGE',
  temperature: 'DCGM_FI_DEV_GPU_TEMP',
  xid: 'DCGM_FI_DEV_XID_ERRORS',
} as const;

/**
 * vLLM metrics the usage views read and the alert rules watch.
 *
 * @public
 */
export const VLLM = {
  generationTokens: 'vllm:generation_tokens_total',
  promptTokens: 'vllm:prompt_tokens_total',
  requestSuccess: 'vllm:request_success_total',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  kvCache: 'vllm:kv_cache_usage_perc',
  e2eLatency: 'vllm:e2e_request_latency_seconds',
  /** Histogram of the seconds each request spent prefilling its prompt. */
  prefillTime: 'vllm:request_prefill_time_seconds',
  /** Histogram of the seconds each request spent decoding its output. */
  decodeTime: 'vllm:request_decode_time_seconds',
} as const;
