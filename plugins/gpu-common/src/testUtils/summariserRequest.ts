import type { ServiceRequest } from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The report summariser in production: Llama-3.1-8B on vLLM in bf16, max-model-len 8192, 64 sequences, one replica.
 *
 * @public
 */
export const summariserRequest: ServiceRequest = {
  name: 'summariser',
  team: 'ml-platform',
  model: 'llama-3.1-8b',
  runtime: 'vllm',
  dtype: 'bf16',
  maxModelLen: 8192,
  concurrency: 64,
  replicas: 1,
  environment: 'production',
};

/**
 * The same request pinned to a dedicated on-demand L4 (one GPU-equivalent of ml-platform's quota on the demo platform).
 *
 * @public
 */
export const summariserOnDedicatedL4: ServiceRequest = {
  ...summariserRequest,
  tier: 'dedicated',
  pool: 'l4-ondemand',
};

/**
 * The dedicated-L4 summariser in the dev environment.
 *
 * @public
 */
export const devSummariser: ServiceRequest = {
  ...summariserOnDedicatedL4,
  environment: 'dev',
};

/**
 * The summariser on two spot L4s in dev, where ml-platform has no quota on the demo platform: it always waits for
 * approval, and fits the pool's six GPUs.
 *
 * @public
 */
export const summariserBeyondQuota: ServiceRequest = {
  ...devSummariser,
  pool: 'spot-l4',
  replicas: 2,
};
