import type { V1ResourceRequirements } from '@kubernetes/client-node';
import { podHostResources } from '../hostResources';
import { GPU_CLAIM_NAME } from './renderResourceClaimTemplate';
import { ServiceContext } from './resolveServiceContext';

/**
 * Resources of the serving container: the slice's GPU resource (request = limit), or on a DRA pool the pod's GPU
 * claim (`resources.claims`, no extended resource), CPU and memory from {@link podHostResources} (no CPU limit).
 */
export function containerResources(
  context: ServiceContext,
): V1ResourceRequirements {
  const { slice } = context;
  const host = podHostResources({
    tier: slice.tier,
    gpusPerReplica: slice.gpusPerReplica,
    weightsBytes: context.weightsBytes,
  });
  const gpu = String(slice.resourceCount);
  if (context.pool.allocation.backend === 'dra') {
    return {
      requests: { cpu: String(host.cpu), memory: `${host.memoryRequestGiB}Gi` },
      limits: { memory: `${host.memoryLimitGiB}Gi` },
      claims: [{ name: GPU_CLAIM_NAME }],
    };
  }
  return {
    requests: {
      cpu: String(host.cpu),
      memory: `${host.memoryRequestGiB}Gi`,
      [slice.resourceName]: gpu,
    },
    limits: {
      memory: `${host.memoryLimitGiB}Gi`,
      [slice.resourceName]: gpu,
    },
  };
}
