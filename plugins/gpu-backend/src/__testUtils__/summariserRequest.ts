/** Seed 004's summariser as a service request on the demo platform. */
export const summariserRequest = {
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
