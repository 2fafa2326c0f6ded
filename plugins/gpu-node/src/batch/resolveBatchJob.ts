import {
  findEnvironment,
  findPool,
  findTeam,
  GpuDomainError,
  isDns1123Label,
  listAllowed,
  Platform,
  Pool,
  TeamQuota,
  teamNamespace,
  EnvironmentPolicy,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { poolResources } from '../kueue/poolResources';
import { checkUserEnv } from './deviceEnv';
import { BatchJobRequest, DEFAULT_NON_RETRIABLE_EXIT_CODES } from './types';

/**
 * A batch request checked against the platform, with what rendering needs.
 *
 * @public
 */
export interface ResolvedBatchJob {
  request: BatchJobRequest;
  team: TeamQuota;
  environment: EnvironmentPolicy;
  pool: Pool;
  namespace: string;
  /** The pool's GPU resource, e.g. `nvidia.com/gpu`. */
  gpuResource: string;
  minParallelism: number;
  nonRetriableExitCodes: number[];
}

/**
 * The pools batch jobs may run on: spot pools with whole GPUs.
 *
 * @public
 */
export function batchPools(platform: Platform): Pool[] {
  return platform.pools.filter(
    p => p.capacityType === 'spot' && p.sharing.type === 'none',
  );
}

function outOfRange(message: string): GpuDomainError {
  return new GpuDomainError('OUT_OF_RANGE', message);
}

function checkInt(name: string, value: number, min: number, max: number) {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw outOfRange(
      `${name} must be a whole number from ${min} to ${max}; got ${value}`,
    );
  }
}

/**
 * Checks a batch request against the platform: a DNS-1123 name, a known team and environment, one of the team's
 * namespaces, a spot pool with whole GPUs, at most a node's GPUs per pod, parallelism within completions and the
 * minimum within parallelism, exit codes from 1 to 255, no `NVIDIA_*` or `CUDA_MPS_*` variables in `env` (the device
 * plugin sets them). Not the quota: that is the store's (see
 * {@link batchPodsAtOnce}).
 *
 * @throws GpuDomainError saying what is wrong and what is allowed.
 * @public
 */
export function resolveBatchJob(
  platform: Platform,
  request: BatchJobRequest,
): ResolvedBatchJob {
  if (!isDns1123Label(request.name)) {
    throw new GpuDomainError(
      'INVALID_NAME',
      `Batch job name "${request.name}" must be a DNS-1123 label: lower-case letters, digits and '-', at most 63 characters`,
    );
  }
  const team = findTeam(platform, request.team);
  const environment = findEnvironment(platform, request.environment);
  const namespace = teamNamespace(team, request.namespace, 'run jobs in');
  const pool = findPool(platform, request.pool);
  const allowedPools = batchPools(platform).map(p => p.name);
  if (!allowedPools.includes(pool.name)) {
    throw new GpuDomainError(
      'TIER_FORBIDDEN',
      `Pool "${pool.name}" is ${pool.capacityType} with ${
        pool.sharing.type
      } sharing; batch jobs run on spot pools with whole GPUs: ${listAllowed(
        allowedPools,
      )}`,
      { allowed: allowedPools },
    );
  }
  checkInt('completions', request.completions, 1, 100_000);
  checkInt('parallelism', request.parallelism, 1, request.completions);
  const minParallelism = request.minParallelism ?? 1;
  checkInt('minParallelism', minParallelism, 1, request.parallelism);
  checkInt(
    `gpusPerPod (a ${pool.name} node has ${pool.gpusPerNode})`,
    request.gpusPerPod,
    1,
    pool.gpusPerNode,
  );
  checkInt('backoffLimit', request.backoffLimit, 0, 1000);
  if (request.image.trim() === '') {
    throw outOfRange('image must name a container image; got ""');
  }
  checkUserEnv(request.env);
  const nonRetriableExitCodes = [
    ...new Set(
      request.nonRetriableExitCodes ?? DEFAULT_NON_RETRIABLE_EXIT_CODES,
    ),
  ].sort((a, b) => a - b);
  for (const code of nonRetriableExitCodes) {
    checkInt('each of nonRetriableExitCodes', code, 1, 255);
  }
  return {
    request,
    team,
    environment,
    pool,
    namespace,
    gpuResource: poolResources(platform, pool)[0].name,
    minParallelism,
    nonRetriableExitCodes,
  };
}
