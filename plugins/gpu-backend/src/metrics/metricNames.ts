/** DCGM exporter metrics the usage views read. */
export const DCGM = {
  gpuUtil: 'DCGM_FI_DEV_GPU_UTIL',
  engineActive: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  fbUsed: 'DCGM_FI_DEV_FB_USED',
  fbFree: 'DCGM_FI_DEV_FB_FREE',
  power: 'DCGM_FI_DEV_POWER_USAGE',
  xid: 'DCGM_FI_DEV_XID_ERRORS',
} as const;

/** vLLM metrics the usage views read. */
export const VLLM = {
  generationTokens: 'vllm:generation_tokens_total',
  promptTokens: 'vllm:prompt_tokens_total',
  requestSuccess: 'vllm:request_success_total',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  kvCache: 'vllm:kv_cache_usage_perc',
  e2eLatency: 'vllm:e2e_request_latency_seconds',
} as const;

/** Bytes in one MiB (DCGM reports framebuffer memory in MiB). */
export const MIB = 1024 * 1024;

/** kube-state-metrics series the usage views read: which pods hold GPUs on which node (extended resources are
 * sanitised, `nvidia.com/gpu` and `nvidia.com/gpu.shared` read `nvidia_com_gpu` and `nvidia_com_gpu_shared`). */
export const KUBE_STATE = {
  resourceRequests: 'kube_pod_container_resource_requests',
  gpuResource: 'nvidia_com_gpu.*',
} as const;
