import type { KubernetesObject } from '@kubernetes/client-node';
import {
  CONSOLIDATION_OFF,
  PlatformFinding,
} from '@gpu-platform/backstage-plugin-gpu-common';

/** A Karpenter NodePool, as far as the check reads it. */
export interface NodePool extends KubernetesObject {
  spec?: { disruption?: { consolidateAfter?: string } };
}

/**
 * `karpenter-no-consolidate-after`: NodePools without `spec.disruption.consolidateAfter` (an older NodePool, or one
 * Karpenter's defaults did not reach) or with `Never`.
 */
export function nodePoolFindings(
  cluster: string,
  nodePools: NodePool[],
): PlatformFinding[] {
  return nodePools
    .filter(nodePool => {
      const after = nodePool.spec?.disruption?.consolidateAfter;
      return after === undefined || after === CONSOLIDATION_OFF;
    })
    .map(nodePool => {
      const name = nodePool.metadata?.name ?? '';
      const after = nodePool.spec?.disruption?.consolidateAfter;
      return {
        id: 'karpenter-no-consolidate-after',
        severity: 'warning',
        source: 'cluster',
        cluster,
        where: `NodePool ${name}`,
        message: `Karpenter NodePool ${name} ${
          after ? `has consolidateAfter: ${after}` : 'has no consolidateAfter'
        }: its empty or underused GPU nodes are not consolidated and stay billed`,
        fix: `Set spec.disruption.consolidateAfter to a duration, e.g. kubectl patch nodepool ${name} --type merge -p '{"spec":{"disruption":{"consolidateAfter":"5m"}}}' (for a NodePool the platform renders: gpu.karpenter.consolidateAfter)`,
      };
    });
}
