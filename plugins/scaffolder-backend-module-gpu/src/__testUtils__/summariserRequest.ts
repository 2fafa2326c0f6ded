import { ServiceRequest } from '@internal/backstage-plugin-gpu-common';

/** Seed 004's production summariser on a dedicated on-demand L4 (one GPU-equivalent of ml-platform's quota). */
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
  tier: 'dedicated',
  pool: 'l4-ondemand',
};
