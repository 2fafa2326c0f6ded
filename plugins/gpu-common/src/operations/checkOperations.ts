import { PlatformFinding } from '../api/platformChecks';
import { formatConfigPath } from '../platform/configIssues';
import { Pool } from '../platform/types';
import { PlatformOperations } from './types';

/**
 * Karpenter's value of `consolidateAfter` that turns consolidation off.
 *
 * @public
 */
export const CONSOLIDATION_OFF = 'Never';

/**
 * `karpenter-no-consolidate-after`: a Karpenter-managed pool whose NodePool never consolidates
 * (`consolidateAfter: Never`), so a GPU node that its last pod left keeps running, and billing, until someone
 * removes it by hand.
 *
 * @public
 */
export function checkOperations(
  operations: PlatformOperations,
  pools: readonly Pick<Pool, 'name'>[],
): PlatformFinding[] {
  return operations.nodePools
    .filter(nodePool => nodePool.consolidateAfter === CONSOLIDATION_OFF)
    .map(nodePool => ({
      id: 'karpenter-no-consolidate-after',
      severity: 'warning',
      source: 'config',
      where: formatConfigPath([
        'gpu',
        'pools',
        pools.findIndex(p => p.name === nodePool.pool),
        'karpenter',
        'consolidateAfter',
      ]),
      message: `The Karpenter NodePool of pool ${nodePool.pool} has consolidateAfter: ${CONSOLIDATION_OFF}: empty or underused GPU nodes are never consolidated and stay billed`,
      fix: `Set a duration, e.g. consolidateAfter: 5m, in gpu.pools[].karpenter.consolidateAfter or gpu.karpenter.consolidateAfter (long enough to ride out a rollout, short enough not to pay for idle GPUs)`,
    }));
}
