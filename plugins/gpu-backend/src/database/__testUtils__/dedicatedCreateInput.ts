import { CreateServiceInput } from '../types';

/**
 * What the store is given to create a dry-run service of one dedicated GPU on `pool` (llama-3.1-8b on vLLM, a
 * reservation of 1 GPU-equivalent at $500 a month, over quota sent to approval).
 */
export function dedicatedCreateInput(input: {
  name: string;
  team: string;
  pool: string;
  actor: string;
}): CreateServiceInput {
  const { name, team, pool, actor } = input;
  return {
    name,
    team,
    namespace: team,
    environment: 'dev',
    tier: 'dedicated',
    pool,
    request: {
      name,
      team,
      model: 'llama-3.1-8b',
      runtime: 'vllm',
      maxModelLen: 8192,
      concurrency: 8,
      replicas: 1,
      environment: 'dev',
      tier: 'dedicated',
      pool,
    },
    placement: { tier: 'dedicated', pool, gpusPerReplica: 1 },
    mode: 'dry-run',
    reservation: { gpuEquivalents: 1, monthlyCostMicros: 500_000_000 },
    policy: { whenOverQuota: 'require-approval' },
    actor,
  };
}
