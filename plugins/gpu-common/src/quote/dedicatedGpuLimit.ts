import { EnvironmentPolicy } from '../platform/types';
import { Slice } from '../tiers/types';

/**
 * Dedicated GPUs a service holds on `slice` with `replicas` replicas: every replica's GPUs, the count the
 * environment's `maxDedicatedGpus` limit is weighed against (0 for a shared tier).
 *
 * @public
 */
export function dedicatedGpusOf(
  slice: Pick<Slice, 'tier' | 'gpusPerReplica'>,
  replicas: number,
): number {
  return slice.tier === 'dedicated' ? slice.gpusPerReplica * replicas : 0;
}

/**
 * Why a service of `replicas` replicas on `slice` needs an approver because its dedicated GPUs, over all replicas,
 * are above what `environment` allows without approval; undefined when they are not. The quote's policy finding, and
 * the gpu backend's when it weighs a pending approval again.
 *
 * @public
 */
export function dedicatedGpuLimitReason(
  environment: Pick<EnvironmentPolicy, 'name' | 'maxDedicatedGpus'>,
  slice: Pick<Slice, 'tier' | 'gpusPerReplica'>,
  replicas: number,
): string | undefined {
  const gpus = dedicatedGpusOf(slice, replicas);
  if (gpus <= environment.maxDedicatedGpus) {
    return undefined;
  }
  const perReplica =
    replicas === 1 ? '' : ` (${replicas} replicas x ${slice.gpusPerReplica})`;
  return `${gpus} dedicated GPUs${perReplica} is above the ${environment.maxDedicatedGpus} that ${environment.name} allows without approval`;
}
