/**
 * The body of a GPU service request (`POST /api/gpu/services`'s `request`) the suites create through the API: Llama
 * 3.1 8B on vLLM in bf16 for ml-platform in ml-serving, 8k context, 16 concurrent, one replica, on the tier and pool
 * given, in dev unless the test says otherwise.
 */
export function serviceRequest(
  name: string,
  placement: { tier: string; pool: string },
  environment: 'dev' | 'staging' | 'production' = 'dev',
) {
  return {
    name,
    team: 'ml-platform',
    namespace: 'ml-serving',
    model: 'llama-3.1-8b',
    runtime: 'vllm',
    dtype: 'bf16',
    maxModelLen: 8192,
    concurrency: 16,
    replicas: 1,
    environment,
    tier: placement.tier,
    pool: placement.pool,
  };
}
